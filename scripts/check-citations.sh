#!/usr/bin/env bash
# Checks the citations of the project's own documents in every tracked file (this script excepted).
#
#  1. No file may cite a document that users do not have: `ngvi-math.md`, `seed-systems.md`,
#     `../shared`, `/work/shared` or a path under `spec/`. Cite `docs/math.md §x.y` or
#     `docs/systems.md §X.y` instead.
#  2. Every `docs/math.md §x.y` and `docs/systems.md §X.y` citation must name a section of that
#     document: a heading (`## 5.`, `### 5.4`, `## C.`, `### C.2`) or a numbered list item under one
#     (`§C.7.4` is item 4 of section C.7). Ranges (`§3.3–3.4`, `§4–5`) check both ends; lists
#     (`§4.2, §5.4`, `§C.5/§C.7`) check every member. The link form `[math.md](math.md) §2.4` counts.
#
# Prints file:line for every violation and a summary; with -v also every section reference that
# resolves. Exits 1 if there is any violation, 2 on a usage error. Run from anywhere inside the
# repository. Needs git and perl (both in Debian's base system).
set -euo pipefail

verbose=0
case "${1-}" in
  "") ;;
  -v|--verbose) verbose=1 ;;
  *) echo "usage: check-citations.sh [-v]" >&2; exit 2 ;;
esac

root=$(git rev-parse --show-toplevel 2>/dev/null) || { echo "check-citations: not inside a git work tree" >&2; exit 2; }
cd "$root"
self="scripts/check-citations.sh"

git ls-files -z | perl -0 -e '
  use strict;
  use warnings;
  use utf8;
  binmode(STDOUT, ":encoding(UTF-8)");
  my ($self, $verbose) = @ARGV;
  my %docs = ("math" => "docs/math.md", "systems" => "docs/systems.md");

  # Section ids of a document: headings, and numbered list items under a heading.
  my %sections;
  for my $key (keys %docs) {
    my $path = $docs{$key};
    $sections{$key} = {};
    next unless -f $path;
    open(my $fh, "<:encoding(UTF-8)", $path) or die "check-citations: cannot read $path: $!\n";
    local $/ = "\n";
    my $current;
    my $fence = 0;
    while (my $line = <$fh>) {
      if ($line =~ /^```/) { $fence = !$fence; next; }
      next if $fence;
      if ($line =~ /^#{1,6}\s+((?:[A-Z]|\d+)(?:\.\d+)*)\.?\s/) {
        $current = $1;
        $sections{$key}{$current} = 1;
      } elsif (defined $current && $line =~ /^\s{0,3}(\d+)\.\s/) {
        $sections{$key}{"$current.$1"} = 1;
      }
    }
    close($fh);
  }

  my @forbidden = (
    [qr/ngvi-math\.md/,                  "ngvi-math.md"],
    [qr/seed-systems\.md/,               "seed-systems.md"],
    [qr/\.\.\/shared\b/,                 "../shared"],
    [qr/\/work\/shared\b/,               "/work/shared"],
    [qr/(?:^|[^A-Za-z0-9_])spec\//,       "spec/"],
  );

  # One section reference: 5, 5.4, C, C.2, C.7.4; a range end may omit the letter of its section.
  my $id   = qr/(?:[A-D]|\d+)(?:\.\d+)*/;
  my $ref  = qr/§\s*$id(?:\s*[–-]\s*$id)?/;
  my $sep  = qr/(?:\s*\([^()]*\))?\s*(?:,|\/|and|;)\s*/;
  my $cite = qr/(?<![\w\/-])(?:docs\/)?(math|systems)\.md[`)\]]*(?:\s*\(\S+?\))?[`]*\s*((?:$ref)(?:$sep$ref)*)/;
  # docs/systems.md A.2, B.6 (lettered ids without §).
  my $bare = qr/(?<![\w\/-])(?:docs\/)?(systems)\.md[`)\]]*\s+([A-D](?:\.\d+)+(?:\s*,\s*[A-D](?:\.\d+)+)*)/;

  my ($n_forbidden, $n_cites, $n_bad) = (0, 0, 0);
  my %files_forbidden;
  local $/ = "\0";
  my @files = <STDIN>;
  chomp @files;
  for my $file (@files) {
    next if $file eq $self;
    next unless -f $file;
    next if -s $file > 16 * 1024 * 1024;
    open(my $fh, "<", $file) or die "check-citations: cannot read $file: $!\n";
    binmode($fh);
    my $head = "";
    read($fh, $head, 8000);
    if ($head =~ /\0/) { close($fh); next; }   # binary
    seek($fh, 0, 0);
    binmode($fh, ":encoding(UTF-8)");
    local $/ = "\n";
    my @lines = <$fh>;
    close($fh);
    for my $i (0 .. $#lines) {
      my $line = $lines[$i];
      my $lineno = $i + 1;
      for my $f (@forbidden) {
        my ($re, $name) = @$f;
        if ($line =~ $re) {
          ++$n_forbidden;
          $files_forbidden{$file} = 1;
          (my $text = $line) =~ s/^\s+|\s+$//g;
          print "$file:$lineno: cites $name (cite docs/math.md or docs/systems.md): $text\n";
          last;
        }
      }
      # A citation whose section list wraps to the next line (a comment continued): append that
      # line without its comment marker, and keep only matches that start on this line.
      my $text = $line;
      my $own = length($line);
      if ($i < $#lines && $line =~ /(?:math|systems)\.md[`)\]]*\s*$/) {
        (my $next = $lines[$i + 1]) =~ s/^\s*(?:\/\/+!?|#+|\*+|--)?\s*//;
        $text =~ s/\s*$/ /;
        $own = length($text);
        $text .= $next;
      }
      my @found;
      while ($text =~ /$cite/g) { push @found, [$1, $2] if $-[0] < $own; }
      while ($text =~ /$bare/g) { push @found, [$1, $2] if $-[0] < $own; }
      for my $c (@found) {
        my ($key, $list) = @$c;
        my @ids;
        for my $r ($list =~ /§\s*$id(?:\s*[–-]\s*$id)?|(?<![\w.])[A-D](?:\.\d+)+/g) {
          my ($first, $last) = $r =~ /^(?:§\s*)?($id)(?:\s*[–-]\s*($id))?$/;
          next unless defined $first;
          push @ids, $first;
          if (defined $last) {
            # A range end without its letter (C.2–3) inherits the letter of the start.
            if ($first =~ /^([A-D])\./ && $last =~ /^\d+$/ && $first =~ /^[A-D]\.\d+$/) { $last = "$1.$last"; }
            push @ids, $last;
          }
        }
        for my $sid (@ids) {
          ++$n_cites;
          if ($sections{$key}{$sid}) {
            print "$file:$lineno: $docs{$key} §$sid: ok\n" if $verbose;
            next;
          }
          ++$n_bad;
          my $what = -f $docs{$key} ? "no such section" : "the document does not exist";
          print "$file:$lineno: $docs{$key} §$sid: $what\n";
        }
      }
    }
  }
  my $nf = scalar keys %files_forbidden;
  print "check-citations: $n_forbidden citation(s) of documents users do not have, in $nf file(s); ",
        "$n_cites section reference(s) to docs/math.md and docs/systems.md, $n_bad of them to a missing section\n";
  exit(($n_forbidden + $n_bad) ? 1 : 0);
' "$self" "$verbose"
