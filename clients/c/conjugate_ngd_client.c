/* Reference client of the conjugate-ngd line protocol, version 1 (docs/protocol.md), in C99 with
 * libc and libm only: Theorem 1's natural-gradient descent on Bayesian linear regression (eq. (15)
 * mini-batch estimate, gamma_t = 2/(t + 2), Theorem 1's average mu-bar_t = sum_s s mu_s / sum_s s).
 * A small reader for exactly the JSON the protocol uses (objects, arrays, numbers, strings, true,
 * false, null); doubles are written with %.17g, so they round-trip.
 *
 *   ngvi verify --algorithm 'exec:build/release/clients/conjugate_ngd_client_c' --claims 'thm1.*,x.*'
 *
 * Flags: --schedule-offset K (gamma_t = 2/(t + 2 + K): K = 1 is the bug of a schedule indexed from
 * t = 1); --average mu|natural|none (natural: average eta and map the average, a bug; none: keep no
 * average, hello says "average": false). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- A JSON value tree (only what the protocol needs). ---- */

enum kind { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct json {
  enum kind kind;
  double num;          /* J_NUM, J_BOOL (0 or 1) */
  char *str;           /* J_STR */
  size_t n;            /* J_ARR, J_OBJ: number of items */
  struct json *items;  /* J_ARR, J_OBJ */
  char **keys;         /* J_OBJ */
} json;

typedef struct {
  const char *p;
  const char *err;
} reader;

static void skip_ws(reader *r) {
  while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r') r->p++;
}

static int parse_value(reader *r, json *out);

static char *parse_string_raw(reader *r) {
  size_t cap = 16, len = 0;
  char *s;
  if (*r->p != '"') {
    r->err = "expected a string";
    return NULL;
  }
  r->p++;
  s = malloc(cap);
  while (*r->p && *r->p != '"') {
    char c = *r->p++;
    if (c == '\\') {
      char e = *r->p++;
      switch (e) {
        case 'n': c = '\n'; break;
        case 't': c = '\t'; break;
        case 'r': c = '\r'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'u': /* \uXXXX: kept as '?' (the protocol's strings are ASCII names) */
          if (strlen(r->p) < 4) {
            r->err = "bad \\u escape";
            free(s);
            return NULL;
          }
          r->p += 4;
          c = '?';
          break;
        case '\0':
          r->err = "unterminated string";
          free(s);
          return NULL;
        default: c = e;
      }
    }
    if (len + 2 > cap) s = realloc(s, cap *= 2);
    s[len++] = c;
  }
  if (*r->p != '"') {
    r->err = "unterminated string";
    free(s);
    return NULL;
  }
  r->p++;
  s[len] = '\0';
  return s;
}

static int parse_items(reader *r, json *out, int object) {
  size_t cap = 4;
  char close = object ? '}' : ']';
  out->kind = object ? J_OBJ : J_ARR;
  out->n = 0;
  out->items = malloc(cap * sizeof(json));
  out->keys = object ? malloc(cap * sizeof(char *)) : NULL;
  r->p++;
  skip_ws(r);
  if (*r->p == close) {
    r->p++;
    return 1;
  }
  for (;;) {
    char *key = NULL;
    skip_ws(r);
    if (object) {
      key = parse_string_raw(r);
      if (!key) return 0;
      skip_ws(r);
      if (*r->p != ':') {
        free(key);
        r->err = "expected ':'";
        return 0;
      }
      r->p++;
    }
    if (out->n == cap) {
      cap *= 2;
      out->items = realloc(out->items, cap * sizeof(json));
      if (object) out->keys = realloc(out->keys, cap * sizeof(char *));
    }
    if (object) out->keys[out->n] = key;
    if (!parse_value(r, &out->items[out->n])) {
      out->n += object ? 1 : 0; /* the key is freed with the object */
      if (object) out->items[out->n - 1].kind = J_NULL;
      return 0;
    }
    out->n++;
    skip_ws(r);
    if (*r->p == ',') {
      r->p++;
      continue;
    }
    if (*r->p == close) {
      r->p++;
      return 1;
    }
    r->err = object ? "expected ',' or '}'" : "expected ',' or ']'";
    return 0;
  }
}

static int parse_value(reader *r, json *out) {
  memset(out, 0, sizeof *out);
  skip_ws(r);
  if (*r->p == '{') return parse_items(r, out, 1);
  if (*r->p == '[') return parse_items(r, out, 0);
  if (*r->p == '"') {
    out->kind = J_STR;
    out->str = parse_string_raw(r);
    return out->str != NULL;
  }
  if (strncmp(r->p, "true", 4) == 0) {
    out->kind = J_BOOL;
    out->num = 1;
    r->p += 4;
    return 1;
  }
  if (strncmp(r->p, "false", 5) == 0) {
    out->kind = J_BOOL;
    r->p += 5;
    return 1;
  }
  if (strncmp(r->p, "null", 4) == 0) {
    r->p += 4;
    return 1;
  }
  if (*r->p == '-' || isdigit((unsigned char)*r->p)) {
    char *end;
    out->kind = J_NUM;
    out->num = strtod(r->p, &end); /* correctly rounded: the 17 digits ngvi writes come back bitwise */
    r->p = end;
    return 1;
  }
  r->err = "unexpected character";
  return 0;
}

static void json_free(json *j) {
  size_t i;
  if (j->kind == J_STR) free(j->str);
  if (j->kind == J_ARR || j->kind == J_OBJ) {
    for (i = 0; i < j->n; ++i) {
      json_free(&j->items[i]);
      if (j->keys) free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
  }
}

static const json *get(const json *obj, const char *key) {
  size_t i;
  if (!obj || obj->kind != J_OBJ) return NULL;
  for (i = 0; i < obj->n; ++i)
    if (strcmp(obj->keys[i], key) == 0) return &obj->items[i];
  return NULL;
}

/* ---- Errors of one call: the answer {"error": "..."} ---- */

static char error_text[512];

static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error_text, sizeof error_text, fmt, ap);
  va_end(ap);
  return 0;
}

/* Reads a vector of d numbers (d = 0: any length, set on return). */
static int read_vec(const json *j, const char *name, double **out, int *d) {
  size_t i;
  if (!j || j->kind != J_ARR) return fail("'%s' is not an array", name);
  if (*d > 0 && (int)j->n != *d) return fail("'%s' has %d entries, expected %d", name, (int)j->n, *d);
  *d = (int)j->n;
  *out = malloc((j->n ? j->n : 1) * sizeof(double));
  for (i = 0; i < j->n; ++i) {
    if (j->items[i].kind != J_NUM) return fail("'%s' has an entry that is not a number", name);
    (*out)[i] = j->items[i].num;
  }
  return 1;
}

/* Reads a rows x cols matrix, row-major (rows or cols = 0: any, set on return). */
static int read_mat(const json *j, const char *name, double **out, int *rows, int *cols) {
  size_t i, k;
  if (!j || j->kind != J_ARR) return fail("'%s' is not an array of rows", name);
  if (*rows > 0 && (int)j->n != *rows) return fail("'%s' has %d rows, expected %d", name, (int)j->n, *rows);
  *rows = (int)j->n;
  if (*cols == 0 && j->n > 0 && j->items[0].kind == J_ARR) *cols = (int)j->items[0].n;
  *out = malloc((j->n > 0 && *cols > 0 ? j->n * (size_t)*cols : 1) * sizeof(double));
  for (i = 0; i < j->n; ++i) {
    const json *row = &j->items[i];
    if (row->kind != J_ARR || (int)row->n != *cols) return fail("'%s' is not a %d x %d array", name, *rows, *cols);
    for (k = 0; k < row->n; ++k) {
      if (row->items[k].kind != J_NUM) return fail("'%s' has an entry that is not a number", name);
      (*out)[i * (size_t)*cols + k] = row->items[k].num;
    }
  }
  return 1;
}

/* ---- Theorem 1's NGD ---- */

static long schedule_offset = 0;
static int average_mode = 0; /* 0: mu (Theorem 1), 1: natural (a bug), 2: none */

typedef struct run {
  long id;
  int n, d;
  double *X, *y, noise_var, *prior1, *prior2;
  double *avg1, *avg2; /* the running average (expectation or natural parameters) */
  long averaged;       /* iterates in it */
  struct run *next;
} run;

static run *runs = NULL;

static run *find_run(long id) {
  run *r;
  for (r = runs; r; r = r->next)
    if (r->id == id) return r;
  return NULL;
}

static void free_run(run *r) {
  free(r->X);
  free(r->y);
  free(r->prior1);
  free(r->prior2);
  free(r->avg1);
  free(r->avg2);
  free(r);
}

/* Inverts the d x d symmetric positive-definite a into inv by Gauss-Jordan elimination with partial
 * pivoting; returns 0 if a pivot vanishes. a is overwritten. */
static int invert(double *a, double *inv, int d) {
  int i, j, k;
  for (i = 0; i < d; ++i)
    for (j = 0; j < d; ++j) inv[i * d + j] = i == j;
  for (k = 0; k < d; ++k) {
    int p = k;
    double pivot;
    for (i = k + 1; i < d; ++i)
      if (fabs(a[i * d + k]) > fabs(a[p * d + k])) p = i;
    if (a[p * d + k] == 0) return 0;
    if (p != k)
      for (j = 0; j < d; ++j) {
        double t = a[k * d + j];
        a[k * d + j] = a[p * d + j];
        a[p * d + j] = t;
        t = inv[k * d + j];
        inv[k * d + j] = inv[p * d + j];
        inv[p * d + j] = t;
      }
    pivot = a[k * d + k];
    for (j = 0; j < d; ++j) {
      a[k * d + j] /= pivot;
      inv[k * d + j] /= pivot;
    }
    for (i = 0; i < d; ++i)
      if (i != k && a[i * d + k] != 0) {
        const double f = a[i * d + k];
        for (j = 0; j < d; ++j) {
          a[i * d + j] -= f * a[k * d + j];
          inv[i * d + j] -= f * inv[k * d + j];
        }
      }
  }
  return 1;
}

/* (eta1, eta2) -> (m, S + m m^T) with S = (-2 eta2)^-1, m = S eta1. */
static int to_expectation(const double *eta1, const double *eta2, int d, double *mu1, double *mu2) {
  double *a = malloc((size_t)d * d * sizeof(double)), *s = malloc((size_t)d * d * sizeof(double));
  int i, j, ok;
  for (i = 0; i < d * d; ++i) a[i] = -2 * eta2[i];
  ok = invert(a, s, d);
  if (ok) {
    for (i = 0; i < d; ++i)
      for (j = 0; j < i; ++j) s[i * d + j] = s[j * d + i] = 0.5 * (s[i * d + j] + s[j * d + i]);
    for (i = 0; i < d; ++i) {
      mu1[i] = 0;
      for (j = 0; j < d; ++j) mu1[i] += s[i * d + j] * eta1[j];
    }
    for (i = 0; i < d; ++i)
      for (j = 0; j < d; ++j) mu2[i * d + j] = s[i * d + j] + mu1[i] * mu1[j];
  }
  free(a);
  free(s);
  return ok;
}

/* ---- Writing answers ---- */

static void put_vec(const double *v, int d) {
  int i;
  putchar('[');
  for (i = 0; i < d; ++i) printf(i ? ",%.17g" : "%.17g", v[i]);
  putchar(']');
}

static void put_mat(const double *m, int d) {
  int i;
  putchar('[');
  for (i = 0; i < d; ++i) {
    if (i) putchar(',');
    put_vec(m + (size_t)i * d, d);
  }
  putchar(']');
}

/* ---- The calls ---- */

static int call_start(const json *req, long id) {
  const json *p = get(req, "problem"), *pn;
  run *r = calloc(1, sizeof(run));
  int cols = 0, one = 0;
  r->id = id;
  if (!p) return free_run(r), fail("start has no 'problem'");
  if (!read_mat(get(p, "X"), "X", &r->X, &r->n, &cols) || !read_vec(get(p, "y"), "y", &r->y, &r->n)) return free_run(r), 0;
  r->d = cols;
  if (!get(p, "noise_var") || get(p, "noise_var")->kind != J_NUM) return free_run(r), fail("'noise_var' is not a number");
  r->noise_var = get(p, "noise_var")->num;
  pn = get(p, "prior_natural");
  one = r->d;
  if (!read_vec(get(pn, "eta1"), "prior_natural.eta1", &r->prior1, &r->d) ||
      !read_mat(get(pn, "eta2"), "prior_natural.eta2", &r->prior2, &one, &r->d))
    return free_run(r), 0;
  r->avg1 = malloc((size_t)r->d * sizeof(double));
  r->avg2 = malloc((size_t)r->d * r->d * sizeof(double));
  r->next = runs;
  runs = r;
  return 1;
}

static int call_step(const json *req, run *r) {
  const json *eta = get(req, "eta"), *batch = get(req, "batch"), *t = get(req, "t");
  double *eta1 = NULL, *eta2 = NULL, *new1, *new2, gamma, scale;
  int d = r->d, rows = r->d, i, j;
  size_t b;
  if (!t || t->kind != J_NUM) return fail("'t' is not a number");
  if (!batch || batch->kind != J_ARR || batch->n == 0) return fail("'batch' is not a non-empty array");
  if (!read_vec(get(eta, "eta1"), "eta.eta1", &eta1, &d) || !read_mat(get(eta, "eta2"), "eta.eta2", &eta2, &rows, &d)) {
    free(eta1);
    free(eta2);
    return 0;
  }
  gamma = 2.0 / (t->num + 2 + (double)schedule_offset);
  scale = (double)r->n / (double)batch->n / r->noise_var;
  new1 = malloc((size_t)d * sizeof(double));
  new2 = malloc((size_t)d * d * sizeof(double));
  /* target = prior + (n/M) sum_i (x_i y_i / s2, -x_i x_i^T / (2 s2)) */
  for (i = 0; i < d; ++i) new1[i] = 0;
  for (i = 0; i < d * d; ++i) new2[i] = 0;
  for (b = 0; b < batch->n; ++b) {
    const long k = (long)batch->items[b].num;
    const double *x;
    if (batch->items[b].kind != J_NUM || k < 0 || k >= r->n) {
      free(eta1), free(eta2), free(new1), free(new2);
      return fail("batch index %ld is outside [0, %d)", k, r->n);
    }
    x = r->X + (size_t)k * d;
    for (i = 0; i < d; ++i) {
      new1[i] += x[i] * r->y[k];
      for (j = 0; j < d; ++j) new2[i * d + j] += x[i] * x[j];
    }
  }
  for (i = 0; i < d; ++i) new1[i] = (1 - gamma) * eta1[i] + gamma * (r->prior1[i] + scale * new1[i]);
  for (i = 0; i < d * d; ++i) new2[i] = (1 - gamma) * eta2[i] + gamma * (r->prior2[i] - (scale / 2) * new2[i]);
  if (average_mode != 2) {
    /* Theorem 1's weights: iterate s = t + 1 weighs s; the running mean moves by 2/(s + 1). */
    double *f1 = malloc((size_t)d * sizeof(double)), *f2 = malloc((size_t)d * d * sizeof(double));
    const long s = (long)t->num + 1;
    const double w = 2.0 / (double)(s + 1);
    if (average_mode == 1) {
      memcpy(f1, new1, (size_t)d * sizeof(double));
      memcpy(f2, new2, (size_t)d * d * sizeof(double));
    } else if (!to_expectation(new1, new2, d, f1, f2)) {
      free(f1), free(f2), free(eta1), free(eta2), free(new1), free(new2);
      return fail("eta_{t+1} at t = %ld has a singular eta2", (long)t->num);
    }
    if (r->averaged == 0) {
      memcpy(r->avg1, f1, (size_t)d * sizeof(double));
      memcpy(r->avg2, f2, (size_t)d * d * sizeof(double));
    } else {
      for (i = 0; i < d; ++i) r->avg1[i] += w * (f1[i] - r->avg1[i]);
      for (i = 0; i < d * d; ++i) r->avg2[i] += w * (f2[i] - r->avg2[i]);
    }
    r->averaged = s;
    free(f1);
    free(f2);
  }
  fputs("{\"eta\":{\"eta1\":", stdout);
  put_vec(new1, d);
  fputs(",\"eta2\":", stdout);
  put_mat(new2, d);
  fputs("}}\n", stdout);
  free(eta1), free(eta2), free(new1), free(new2);
  return 1;
}

static int call_average(run *r) {
  const int d = r->d;
  double *m1, *m2;
  if (average_mode == 2) return fail("this client keeps no average (hello said average: false)");
  if (r->averaged == 0) return fail("run %ld has taken no step: no average yet", r->id);
  m1 = malloc((size_t)d * sizeof(double));
  m2 = malloc((size_t)d * d * sizeof(double));
  if (average_mode == 1) {
    if (!to_expectation(r->avg1, r->avg2, d, m1, m2)) {
      free(m1), free(m2);
      return fail("the averaged eta2 is singular");
    }
  } else {
    memcpy(m1, r->avg1, (size_t)d * sizeof(double));
    memcpy(m2, r->avg2, (size_t)d * d * sizeof(double));
  }
  fputs("{\"average\":{\"mean\":", stdout);
  put_vec(m1, d);
  fputs(",\"second_moment\":", stdout);
  put_mat(m2, d);
  fputs("}}\n", stdout);
  free(m1), free(m2);
  return 1;
}

/* Answers one request line; returns 0 with error_text set if the call fails. */
static int answer(const char *line) {
  reader rd = {line, NULL};
  json req;
  const json *call, *run_id;
  int ok = 0;
  long id = -1;
  if (!parse_value(&rd, &req)) {
    json_free(&req);
    return fail("the request is not JSON (%s)", rd.err ? rd.err : "?");
  }
  call = get(&req, "call");
  run_id = get(&req, "run");
  if (run_id && run_id->kind == J_NUM) id = (long)run_id->num;
  if (!call || call->kind != J_STR) {
    ok = fail("the request has no 'call'");
  } else if (strcmp(call->str, "hello") == 0) {
    const json *p = get(&req, "protocol"), *v = get(&req, "version");
    if (!p || p->kind != J_STR || strcmp(p->str, "conjugate-ngd") != 0 || !v || v->kind != J_NUM || v->num != 1)
      ok = fail("this client speaks conjugate-ngd version 1");
    else
      ok = printf("{\"protocol\":\"conjugate-ngd\",\"version\":1,\"name\":\"c-ngd\",\"implementation_version\":\"1.0\","
                  "\"average\":%s}\n",
                  average_mode == 2 ? "false" : "true") > 0;
  } else if (strcmp(call->str, "start") == 0) {
    if (find_run(id)) ok = fail("run %ld is already open", id);
    else if ((ok = call_start(&req, id))) fputs("{\"ok\":true}\n", stdout);
  } else if (strcmp(call->str, "end") == 0) {
    run **pp = &runs;
    while (*pp && (*pp)->id != id) pp = &(*pp)->next;
    if (*pp) {
      run *r = *pp;
      *pp = r->next;
      free_run(r);
    }
    ok = fputs("{\"ok\":true}\n", stdout) >= 0;
  } else {
    run *r = find_run(id);
    if (!r) ok = fail("no run %ld is open", id);
    else if (strcmp(call->str, "step") == 0) ok = call_step(&req, r);
    else if (strcmp(call->str, "average") == 0) ok = call_average(r);
    else ok = fail("unknown call '%s'", call->str);
  }
  json_free(&req);
  return ok;
}

int main(int argc, char **argv) {
  size_t cap = 1 << 16, len;
  char *line = malloc(cap);
  int i;
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--schedule-offset") == 0 && i + 1 < argc) {
      schedule_offset = atol(argv[++i]);
    } else if (strcmp(argv[i], "--average") == 0 && i + 1 < argc) {
      ++i;
      average_mode = strcmp(argv[i], "natural") == 0 ? 1 : strcmp(argv[i], "none") == 0 ? 2 : 0;
      if (average_mode == 0 && strcmp(argv[i], "mu") != 0) {
        fprintf(stderr, "conjugate_ngd_client: --average must be mu, natural or none (got '%s')\n", argv[i]);
        return 2;
      }
    } else {
      fprintf(stderr, "conjugate_ngd_client: unknown argument '%s' (known: --schedule-offset K, --average mu|natural|none)\n", argv[i]);
      return 2;
    }
  }
  for (;;) { /* one request per line, of any length */
    int c;
    len = 0;
    while ((c = getchar()) != EOF && c != '\n') {
      if (len + 1 >= cap) line = realloc(line, cap *= 2);
      line[len++] = (char)c;
    }
    if (c == EOF && len == 0) break;
    line[len] = '\0';
    if (len == 0) continue;
    if (!answer(line)) {
      /* the message has no quote or backslash of its own but the call names it may: replace them */
      char *q;
      for (q = error_text; *q; ++q)
        if (*q == '"' || *q == '\\' || (unsigned char)*q < 0x20) *q = '\'';
      printf("{\"error\":\"%s\"}\n", error_text);
    }
    fflush(stdout);
  }
  free(line);
  return 0;
}
