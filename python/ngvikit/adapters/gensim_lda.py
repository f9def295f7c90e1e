"""gensim's online LDA behind the ``svi-lda`` protocol.

``GensimLda()`` is an svi-lda implementation (``protocol = "svi-lda"``, ``origin = 0``). Each
trajectory holds one ``gensim.models.LdaModel`` configured from the problem:

    num_topics = K, id2word = {w: str(w)} over the V words, alpha = [α]·K and eta = η (numbers: no
    alpha/eta optimisation), decay = κ, offset = τ₀, chunksize = |S|, passes = 1, update_every = 1,
    iterations and gamma_threshold (defaults 100 and 1e-3, scikit-learn's; gensim's own are 50 and
    1e-3), eval_every = None, random_state = the problem's seed (mod 2^32), dtype = float64 (gensim's
    default float32 would round λ to 7 digits).

Each update sets the model's state from the λ the claim hands (``state.sstats = λ − η``, then
gensim's own ``sync_state()`` for ``expElogbeta``) when it differs from the state's
``get_lambda()``, and calls ``model.update(chunk, chunksize=|S|)`` on the minibatch as gensim's
bag-of-words (lists of (word id, count)): gensim's E-step (``inference``), ρ and ``blend``. It
returns ``state.get_lambda()`` (= η + sstats) and the γ of gensim's ``do_estep`` (read by wrapping it;
its return value is passed on unchanged).

How gensim counts and replicates (gensim 4.2, ``LdaModel.update`` and ``LdaState.blend``):

- ρ = (offset + pass_ + num_updates / chunksize)^(−decay), with num_updates the documents of the
  previous updates: at the t-th call of ``update`` on chunks of |S| documents (t = 0, 1, …) this is
  (τ₀ + t)^(−κ), so ``origin = 0``. gensim's ``offset`` is Hoffman's τ₀ + 1 (docs/systems.md,
  "External implementations").
- The minibatch's statistics are scaled by ``state.numdocs / |S|``, and ``update`` adds the length
  of the corpus it is given to ``state.numdocs``. gensim's own fit over a corpus of D documents has
  ``numdocs = D``; fed one chunk per call, ``numdocs`` counts the documents seen so far. With
  ``numdocs="corpus"`` (the default) the adapter sets ``state.numdocs = D − |S|`` before each call,
  so that gensim's target size is the problem's D, as in its own fit of the D documents; with
  ``numdocs="stream"`` it leaves gensim's count alone (the replication then grows with the stream).
"""

from __future__ import annotations

import logging

import numpy as np


class GensimLda:
    """gensim's ``LdaModel`` as an svi-lda implementation (see the module's documentation)."""

    protocol = "svi-lda"
    origin = 0  # num_updates / chunksize starts at 0

    def __init__(self, iterations: int = 100, gamma_threshold: float = 1e-3, numdocs: str = "corpus"):
        import gensim
        from gensim.models import LdaModel  # noqa: F401 (fails early when missing)

        if numdocs not in ("corpus", "stream"):
            raise ValueError(f"numdocs: expected 'corpus' or 'stream', got {numdocs!r}")
        self.name = "gensim LdaModel" + (" (numdocs as streamed)" if numdocs == "stream" else "")
        self.version = gensim.__version__
        self.iterations = int(iterations)
        self.gamma_threshold = float(gamma_threshold)
        self.numdocs = numdocs
        # gensim logs every update at INFO and warns that one pass may not converge.
        logging.getLogger("gensim").setLevel(logging.ERROR)

    def start(self, problem):
        return _GensimTrajectory(self, problem)


class _GensimTrajectory:
    def __init__(self, owner: GensimLda, p):
        from gensim.models import LdaModel

        self.owner = owner
        self.D, self.K, self.batch = int(p.D), int(p.K), int(p.batch)
        self.eta = float(p.eta)
        self.model = LdaModel(
            corpus=None,
            num_topics=self.K,
            id2word={w: str(w) for w in range(int(p.V))},
            chunksize=self.batch,
            passes=1,
            update_every=1,
            alpha=np.full(self.K, float(p.alpha)),
            eta=self.eta,
            decay=float(p.kappa),
            offset=float(p.tau0),
            eval_every=None,
            iterations=owner.iterations,
            gamma_threshold=owner.gamma_threshold,
            random_state=int(p.seed) % 2**32,
            dtype=np.float64,
        )
        assert not self.model.optimize_alpha and not self.model.optimize_eta
        self._set_topics(np.asarray(p.lambda0, dtype=np.float64))
        self._gamma = None
        library_do_estep = self.model.do_estep

        def do_estep(chunk, state=None):  # gensim's own E-step; its γ is kept on the way out
            gamma = library_do_estep(chunk, state)
            self._gamma = gamma
            return gamma

        self.model.do_estep = do_estep

    def _set_topics(self, lam: np.ndarray) -> None:
        self.model.state.sstats = np.array(lam, dtype=np.float64, copy=True) - self.model.eta
        self.model.sync_state()

    def update(self, t, lam, docs):
        if not np.array_equal(lam, self.model.state.get_lambda()):
            self._set_topics(lam)
        chunk = [list(zip((int(w) for w in ids), (float(c) for c in counts))) for ids, counts in docs]
        if self.owner.numdocs == "corpus":
            self.model.state.numdocs = self.D - len(chunk)
        self._gamma = None
        self.model.update(chunk, chunksize=self.batch)
        return self.model.state.get_lambda().copy(), self._gamma
