#!/usr/bin/env python3
"""Online LDA: the kit (`ngvi run svi-lda`) against scikit-learn's LatentDirichletAllocation
(learning_method='online') and gensim's LdaModel on the same counts and settings. Prints documents
per second of the fit (one thread) and the held-out perplexity of each fitted lambda computed by ONE
formula for all three (scikit-learn's perplexity(X), sub_sampling=False: a fresh E-step with
gamma = 1, at most 100 updates, mean-change tolerance 1e-3, the bound of docs/systems.md A.4 without
subsampling factor, exp(-bound / held-out tokens), in nats), best of --seeds seeds each.

Usage: bench/compare_lda.py (--data docword.txt | --synthetic) [--ngvi build/release/experiments/ngvi]
       [--topics 10] [--passes 10] [--batch-size 128] [--tau0 10] [--kappa 0.7] [--seeds 3] [--holdout-every 10]
--data is a UCI docword file (build the real one with scripts/build_manpages_corpus.py); --synthetic
draws the synthetic benchmark of docs/systems.md A.4 with numpy (K = 5 topics ~ Dir(0.05) over V = 200
words, theta ~ Dir(0.1), lengths ~ Poisson(80), 2500 documents of which every 5th is held out, so 2000
training and 500 held-out; give --topics 5 --holdout-every 5) and writes it as a docword file.

Speed is documents per CPU-second of the fit (training documents x passes / process CPU time of the
fit; the kit reports its own figure, measured around the fit with the held-out evaluations excluded),
with every code on one thread (OMP/OpenBLAS/MKL threads set to 1 before numpy loads; the kit with
--threads 1). CPU time rather than wall time because the machines these runs are made on are shared.
Each column is the best of --seeds seeds: the highest speed and the lowest perplexity.

Conventions (docs/systems.md A.4): alpha = eta = 1/K unless given; the held-out split is every
n-th document (index % n == n - 1), as `ngvi run svi-lda --holdout-every n`. gensim's step size is
rho = (offset + passes_done + updates/chunks)^-decay, so its schedule differs from Hoffman's t = 1, 2, ...
indexing that scikit-learn and the kit share; we pass offset = tau0 and decay = kappa and say so.
Missing python3-sklearn or python3-gensim: that peer is skipped with a message.

--sweep runs the grid of K (--sweep-topics, default 5,20,50,100) x mean document length in tokens
(--sweep-lengths, default 20,110,650: about 20, 100 and 500 distinct words a document) on corpora of the
kit's own synthetic generator (data/lda_synthetic.hpp through build/release/bench/ngvi_lda_synthetic_dump:
K true topics over --sweep-vocab words, --sweep-docs documents, every 5th held out), and prints one
Markdown row per cell: the mean distinct words a document; documents/s of the kit at one thread (CPU
time) and at two (wall time), scikit-learn's and gensim's (one thread, CPU time), each the median over
--seeds seeds; the kit / scikit-learn speed ratio, the kit's two-thread / one-thread wall ratio; the
held-out perplexity of each code as the mean over the seeds with the seeds' spread (max - min), and the
kit's mean against scikit-learn's. The sweep's perplexity leaves out the topics' part of the bound: scaled
by the held-out tokens as scikit-learn's formula does, that part (V x K Dirichlet terms) dominates on
these corpora (to e^200 and beyond with K = 100 and documents of 20 tokens), so it would compare the
codes' lambda entries far from any held-out word rather than their predictions. With --same-start the sweep also fits every
code from one start per seed (the same K x V Gamma(100, 1/100) draws; the kit reads it with --init-lambda, scikit-learn's and
gensim's own initialisation runs and then lambda_0 is replaced, as the adapters of python/ngvikit/adapters do) and prints those
perplexities and the kit's mean against scikit-learn's with the per-seed range of the paired differences: the seeds' spread
then no longer hides the codes' difference. The speed columns always come from each code's own start. The achieved fraction of the E-step's floor comes from
`ngvi_bench --benchmark_filter='BM_(LdaEStepSweep|FmaPeak|DivPeak)'` (bench/README.md).
"""
import argparse
import glob
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one thread for every code, set before numpy loads
    os.environ[_v] = "1"
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import scipy.sparse as sp
    from scipy.special import digamma, gammaln
except ImportError:
    sys.exit("compare_lda.py: needs python3-numpy and python3-scipy (apt-get install python3-scipy)")


def read_docword(path):
    with open(path) as f:
        D, W, nnz = int(f.readline()), int(f.readline()), int(f.readline())
        rows, cols, vals = [], [], []
        for line in f:
            d, w, c = line.split()
            rows.append(int(d) - 1)
            cols.append(int(w) - 1)
            vals.append(int(c))
    return sp.csr_matrix((vals, (rows, cols)), shape=(D, W), dtype=np.float64)


def dir_exp(a):
    return digamma(a) - digamma(a.sum(axis=-1, keepdims=True))


def perplexity(X, lam, alpha, eta, max_iter=100, tol=1e-3, topic_term=True):
    """scikit-learn's perplexity formula, written out (fresh gamma = 1, no subsampling factor); topic_term=False
    leaves out the topics' part of the bound (the documents' part alone, per held-out token)."""
    K, V = lam.shape
    elog_beta = dir_exp(lam)
    exp_beta = np.exp(elog_beta)
    bound = 0.0
    eps = np.finfo(float).eps
    for d in range(X.shape[0]):
        ids = X.indices[X.indptr[d]:X.indptr[d + 1]]
        cnt = X.data[X.indptr[d]:X.indptr[d + 1]]
        g = np.ones(K)
        et = np.exp(dir_exp(g))
        b = exp_beta[:, ids]
        norm = et @ b + eps
        for _ in range(max_iter):
            last = g
            g = alpha + et * ((cnt / norm) @ b.T)
            et = np.exp(dir_exp(g))
            norm = et @ b + eps
            if np.mean(np.abs(g - last)) < tol:
                break
        elt = dir_exp(g)
        v = elt[:, None] + elog_beta[:, ids]
        m = v.max(axis=0)
        bound += np.sum(cnt * (m + np.log(np.exp(v - m).sum(axis=0))))
        bound += np.sum((alpha - g) * elt) + np.sum(gammaln(g) - gammaln(alpha)) + gammaln(alpha * K) - gammaln(g.sum())
    if topic_term:
        bound += np.sum((eta - lam) * elog_beta) + np.sum(gammaln(lam) - gammaln(eta)) + np.sum(gammaln(eta * V) - gammaln(lam.sum(axis=1)))
    return float(np.exp(-bound / X.sum()))


def run_kit(a, path, seed, threads=1, wall=False, start=None):
    """The kit's fit: documents per CPU-second (or per wall second with wall=True) and the fitted lambda; with start
    (a K x V array), the fit begins there (--init-lambda) instead of at the kit's own Gamma(100, 1/100) draws."""
    out = tempfile.mkdtemp(prefix="ngvi_compare_")
    cmd = [a.ngvi, "run", "svi-lda", "--data", path, "--topics", str(a.topics), "--passes", str(a.passes), "--batch-size", str(a.batch_size),
           "--tau0", str(a.tau0), "--kappa", str(a.kappa), "--holdout-every", str(a.holdout_every), "--seed", str(seed), "--threads",
           str(threads), "--save-lambda", "--out", out]
    if start is not None:
        np.savetxt(os.path.join(out, "start.csv"), start, delimiter=",", fmt="%.17g")
        cmd += ["--init-lambda", os.path.join(out, "start.csv")]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit("compare_lda.py: " + " ".join(cmd) + " failed: " + res.stderr.strip())
    dps = None
    key = "documents/second" if wall else "documents/CPU-second"
    for line in res.stdout.splitlines():
        if key in line:
            dps = float(line.split(key)[1].split()[0].rstrip(","))
    lam = np.loadtxt(glob.glob(os.path.join(out, "runs", "*", "lambda.csv"))[0], delimiter=",", ndmin=2)
    return dps, lam


def fit_sklearn(a, Xtr, alpha, eta, seed, start=None):
    from sklearn.decomposition import LatentDirichletAllocation
    if start is not None:
        from sklearn.decomposition._lda import _dirichlet_expectation_2d

        class LatentDirichletAllocation(LatentDirichletAllocation):  # noqa: F811: scikit-learn's own start, then lambda_0 = start
            def _init_latent_vars(self, n_features, dtype=np.float64):
                super()._init_latent_vars(n_features, dtype)
                self.components_ = np.array(start, dtype=dtype, copy=True)
                self.exp_dirichlet_component_ = np.exp(_dirichlet_expectation_2d(self.components_))
    m = LatentDirichletAllocation(n_components=a.topics, doc_topic_prior=alpha, topic_word_prior=eta, learning_method="online",
                                  learning_decay=a.kappa, learning_offset=a.tau0, max_iter=a.passes, batch_size=a.batch_size, n_jobs=1,
                                  random_state=seed)
    t0 = time.process_time()
    m.fit(Xtr)
    return a.passes * Xtr.shape[0] / (time.process_time() - t0), m.components_


def fit_gensim(a, Xtr, V, alpha, eta, seed, start=None):
    from gensim.models import LdaModel
    corpus = [list(zip(Xtr.indices[Xtr.indptr[d]:Xtr.indptr[d + 1]].tolist(), Xtr.data[Xtr.indptr[d]:Xtr.indptr[d + 1]].tolist()))
              for d in range(Xtr.shape[0])]
    t0 = time.process_time()
    m = LdaModel(None if start is not None else corpus, num_topics=a.topics, id2word={i: str(i) for i in range(V)}, alpha=[alpha] * a.topics,
                 eta=eta, decay=a.kappa, offset=a.tau0, passes=a.passes, chunksize=a.batch_size, update_every=1, iterations=100,
                 gamma_threshold=1e-3, eval_every=None, random_state=seed)
    if start is not None:  # gensim's lambda is eta + sstats; sync_state forms its exp(E log beta)
        m.state.sstats = (np.array(start, dtype=np.float64) - m.eta).astype(m.dtype)
        m.sync_state()
        m.update(corpus)
    return a.passes * Xtr.shape[0] / (time.process_time() - t0), m.state.get_lambda()


def sweep(a):
    """The K x length grid on the kit's synthetic corpora (see the module's docstring)."""
    if not os.access(a.dump, os.X_OK):
        sys.exit(f"compare_lda.py: {a.dump} not found; build it with `make -C build/release ngvi_lda_synthetic_dump`")
    if not os.access(a.ngvi, os.X_OK):
        sys.exit(f"compare_lda.py: {a.ngvi} not found; build the ngvi target first")
    peers = []
    for name, mod in (("scikit-learn", "sklearn"), ("gensim", "gensim")):
        try:
            __import__(mod)
            peers.append(name)
        except ImportError:
            print(f"compare_lda.py: {mod} is not installed; {name} skipped")
    tmp = tempfile.mkdtemp(prefix="ngvi_sweep_")
    a.holdout_every = 5
    print(f"|S| = {a.batch_size}, passes = {a.passes}, tau0 = {a.tau0}, kappa = {a.kappa}, alpha = eta = 1/K, V = {a.sweep_vocab}, "
          f"{a.sweep_docs} documents (every 5th held out), {a.seeds} seeds; documents/s medians over the seeds; perplexity mean (spread)")
    head = ["K", "tokens", "distinct words", "kit 1 thread", "kit 2 threads", "2 / 1 threads"]
    for p in peers:
        head.append(p)
    if "scikit-learn" in peers:
        head.append("kit / scikit-learn")
    head += ["kit perplexity"] + [f"{p} perplexity" for p in peers]
    if "scikit-learn" in peers:
        head.append("kit vs scikit-learn perplexity")
    if a.same_start:
        head += ["kit perplexity, same start"] + [f"{p} perplexity, same start" for p in peers]
        if "scikit-learn" in peers:
            head.append("kit vs scikit-learn, same start (per-seed range)")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for K in a.sweep_topics:
        for L in a.sweep_lengths:
            path = os.path.join(tmp, f"docword.k{K}.l{L}.txt")
            res = subprocess.run([a.dump, str(K), str(a.sweep_vocab), str(L), str(a.sweep_docs), "1", path], capture_output=True, text=True)
            if res.returncode != 0:
                sys.exit("compare_lda.py: ngvi_lda_synthetic_dump failed: " + res.stderr.strip())
            distinct = float(res.stdout.split(":")[1])
            X = read_docword(path)
            n = np.arange(X.shape[0])
            Xtr, Xte = X[n % 5 != 4], X[n % 5 == 4]
            a.topics = K
            alpha = eta = 1.0 / K
            speed, perp = {}, {}
            one, two, pk = [], [], []
            for s in range(a.seeds):
                d1, lam = run_kit(a, path, 1000 + s, threads=1)
                d2, lam2 = run_kit(a, path, 1000 + s, threads=2, wall=True)
                if not np.array_equal(lam, lam2):
                    sys.exit(f"compare_lda.py: K = {K}, length {L}, seed {1000 + s}: the kit's lambda differs between 1 and 2 threads")
                one.append(d1)
                two.append(d2)
                pk.append(perplexity(Xte, lam, alpha, eta, topic_term=False))
            speed["kit"], speed["kit2"], perp["kit"] = np.median(one), np.median(two), pk
            for p in peers:
                runs = [fit_sklearn(a, Xtr, alpha, eta, s) if p == "scikit-learn" else fit_gensim(a, Xtr, X.shape[1], alpha, eta, s)
                        for s in range(a.seeds)]
                speed[p] = np.median([r[0] for r in runs])
                perp[p] = [perplexity(Xte, r[1], alpha, eta, topic_term=False) for r in runs]
            if a.same_start:
                # One start per seed for all three codes (numpy's Gamma(100, 1/100) draws), so that the perplexities differ by
                # the codes' steps, not by their starts' basins; the speeds above are each code's own fit from its own start.
                pair = {"kit": []}
                for p in peers:
                    pair[p] = []
                for s in range(a.seeds):
                    start = np.random.default_rng(5000 + s).gamma(100.0, 0.01, (K, X.shape[1]))
                    _, lam = run_kit(a, path, 1000 + s, threads=1, start=start)
                    pair["kit"].append(perplexity(Xte, lam, alpha, eta, topic_term=False))
                    for p in peers:
                        r = fit_sklearn(a, Xtr, alpha, eta, s, start) if p == "scikit-learn" else fit_gensim(a, Xtr, X.shape[1], alpha, eta, s, start)
                        pair[p].append(perplexity(Xte, r[1], alpha, eta, topic_term=False))
            ms = lambda v: f"{np.mean(v):.6g} ({np.max(v) - np.min(v):.2g})"
            row = [str(K), str(L), f"{distinct:.0f}", f"{speed['kit']:.0f}", f"{speed['kit2']:.0f}", f"{speed['kit2'] / speed['kit']:.2f}x"]
            row += [f"{speed[p]:.0f}" for p in peers]
            if "scikit-learn" in peers:
                row.append(f"**{speed['kit'] / speed['scikit-learn']:.2f}x**")
            row += [ms(perp["kit"])] + [ms(perp[p]) for p in peers]
            if "scikit-learn" in peers:
                row.append(f"{100 * (np.mean(perp['kit']) / np.mean(perp['scikit-learn']) - 1):+.2f}%")
            if a.same_start:
                row += [ms(pair["kit"])] + [ms(pair[p]) for p in peers]
                if "scikit-learn" in peers:
                    d = 100 * (np.array(pair["kit"]) / np.array(pair["scikit-learn"]) - 1)
                    row.append(f"{100 * (np.mean(pair['kit']) / np.mean(pair['scikit-learn']) - 1):+.2f}% ({np.min(d):+.2f}% .. {np.max(d):+.2f}%)")
            print("| " + " | ".join(row) + " |", flush=True)


def write_synthetic(path, seed):
    """The synthetic benchmark of docs/systems.md A.4 drawn with numpy, written as a UCI docword file."""
    rng = np.random.default_rng(seed)
    K, V, D = 5, 200, 2500
    beta = rng.dirichlet(np.full(V, 0.05), size=K)
    lines = []
    for d in range(D):
        theta = rng.dirichlet(np.full(K, 0.1))
        n = 0
        while n == 0:
            n = rng.poisson(80)
        z = rng.choice(K, size=n, p=theta)
        w = np.array([rng.choice(V, p=beta[k]) for k in z])
        ids, cnt = np.unique(w, return_counts=True)
        lines.extend(f"{d + 1} {i + 1} {c}" for i, c in zip(ids, cnt))
    with open(path, "w") as f:
        f.write(f"{D}\n{V}\n{len(lines)}\n" + "\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--synthetic", action="store_true", help="the synthetic benchmark of docs/systems.md A.4 (seed 1)")
    ap.add_argument("--ngvi", default="build/release/experiments/ngvi")
    ap.add_argument("--topics", type=int, default=10)
    ap.add_argument("--passes", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--tau0", type=float, default=10.0)
    ap.add_argument("--kappa", type=float, default=0.7)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--holdout-every", type=int, default=10)
    ap.add_argument("--sweep", action="store_true", help="the K x document-length grid on the kit's synthetic corpora")
    ap.add_argument("--sweep-topics", type=lambda t: [int(x) for x in t.split(",")], default=[5, 20, 50, 100])
    ap.add_argument("--sweep-lengths", type=lambda t: [int(x) for x in t.split(",")], default=[20, 110, 650])
    ap.add_argument("--sweep-vocab", type=int, default=10000)
    ap.add_argument("--sweep-docs", type=int, default=1000)
    ap.add_argument("--dump", default="build/release/bench/ngvi_lda_synthetic_dump")
    ap.add_argument("--same-start", action="store_true",
                    help="with --sweep: also fit every code from one start per seed (numpy's Gamma(100, 1/100) draws, given to the kit by "
                         "--init-lambda, to scikit-learn and gensim through their own initialisation) and compare those perplexities")
    a = ap.parse_args()
    if a.sweep:
        if a.data is not None or a.synthetic:
            sys.exit("compare_lda.py: --sweep makes its own corpora; give neither --data nor --synthetic")
        sweep(a)
        return
    if (a.data is None) == (not a.synthetic):
        sys.exit("compare_lda.py: give exactly one of --data FILE and --synthetic")
    if a.synthetic:
        a.data = os.path.join(tempfile.mkdtemp(prefix="ngvi_compare_"), "docword.synthetic.txt")
        write_synthetic(a.data, 1)
    X = read_docword(a.data)
    n = np.arange(X.shape[0])
    test_rows = n[n % a.holdout_every == a.holdout_every - 1]
    train_rows = n[n % a.holdout_every != a.holdout_every - 1]
    Xtr, Xte = X[train_rows], X[test_rows]
    alpha = eta = 1.0 / a.topics
    rows = []
    if os.access(a.ngvi, os.X_OK):
        runs = []
        for s in range(a.seeds):
            dps, lam = run_kit(a, a.data, 1000 + s)
            runs.append((dps, perplexity(Xte, lam, alpha, eta)))
        rows.append(("ngvikit", max(r[0] for r in runs), min(r[1] for r in runs)))
    else:
        print(f"compare_lda.py: {a.ngvi} not found; build the ngvi target first; kit skipped")
    try:
        runs = [fit_sklearn(a, Xtr, alpha, eta, s) for s in range(a.seeds)]
        rows.append(("scikit-learn online", max(r[0] for r in runs), min(perplexity(Xte, r[1], alpha, eta) for r in runs)))
    except ImportError:
        print("compare_lda.py: python3-sklearn is not installed; scikit-learn skipped")
    try:
        runs = [fit_gensim(a, Xtr, X.shape[1], alpha, eta, s) for s in range(a.seeds)]
        rows.append(("gensim LdaModel", max(r[0] for r in runs), min(perplexity(Xte, r[1], alpha, eta) for r in runs)))
    except ImportError:
        print("compare_lda.py: python3-gensim is not installed; gensim skipped")
    print(f"{a.data}: {Xtr.shape[0]} training / {Xte.shape[0]} held-out documents, V = {X.shape[1]}, K = {a.topics}, "
          f"|S| = {a.batch_size}, passes = {a.passes}, tau0 = {a.tau0}, kappa = {a.kappa}, best of {a.seeds} seeds")
    print(f"{'code':<22}{'documents/CPU-s':>16}{'held-out perplexity':>22}{'speed vs sklearn':>18}{'perplexity vs sklearn':>23}")
    ref = {name: (dps, p) for name, dps, p in rows}.get("scikit-learn online")
    for name, dps, p in rows:
        vs = f"{dps / ref[0]:>17.2f}x{100 * (p / ref[1] - 1):>+22.2f}%" if ref else ""
        print(f"{name:<22}{dps:>16.1f}{p:>22.4f}{vs}")


if __name__ == "__main__":
    main()
