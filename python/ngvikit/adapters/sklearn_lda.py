"""scikit-learn's online LDA behind the ``svi-lda`` protocol.

``SklearnLda()`` is an svi-lda implementation (``protocol = "svi-lda"``, ``origin = 1``). Each
trajectory holds one ``sklearn.decomposition.LatentDirichletAllocation`` configured from the
problem:

    n_components = K, doc_topic_prior = α, topic_word_prior = η, learning_method = "online",
    learning_decay = κ, learning_offset = τ₀, total_samples = D, batch_size = |S|,
    max_doc_update_iter and mean_change_tol (defaults 100 and 1e-3, scikit-learn's),
    random_state = the problem's seed (mod 2^32).

Its latent variables are initialised by scikit-learn's own ``_init_latent_vars`` (which sets
``n_batch_iter_ = 1``: scikit-learn's ρ at its first update is (τ₀ + 1)^(−κ), origin 1), then
``components_`` is set to λ₀. Each update sets ``components_`` (and ``exp_dirichlet_component_``,
with scikit-learn's own ``_dirichlet_expectation_2d``) from the λ the claim hands when it differs
from the estimator's, and calls ``_em_step(X, total_samples=D, batch_update=False)`` on the
minibatch as a CSR document-word matrix: scikit-learn's E-step (γ from Gamma(100, 1/100) drawn from
its ``random_state_``), its weight ``(learning_offset + n_batch_iter_)^(−learning_decay)``, its
``doc_ratio = total_samples / n_samples`` and its update of ``components_``. The γ of that E-step is
read by wrapping the estimator's ``_e_step`` (its return value is passed on unchanged), and returned
with λ_{t+1} = ``components_``.
"""

from __future__ import annotations

import numpy as np


class SklearnLda:
    """scikit-learn's ``LatentDirichletAllocation(learning_method="online")`` as an svi-lda
    implementation (see the module's documentation)."""

    protocol = "svi-lda"
    origin = 1  # n_batch_iter_ starts at 1

    def __init__(self, max_doc_update_iter: int = 100, mean_change_tol: float = 1e-3):
        import sklearn
        from sklearn.decomposition import LatentDirichletAllocation  # noqa: F401 (fails early when missing)

        self.name = "scikit-learn LatentDirichletAllocation"
        self.version = sklearn.__version__
        self.max_doc_update_iter = int(max_doc_update_iter)
        self.mean_change_tol = float(mean_change_tol)

    def start(self, problem):
        return _SklearnTrajectory(self, problem)


def _csr(docs, n_words: int):
    import scipy.sparse as sp

    indptr = np.zeros(len(docs) + 1, dtype=np.int64)
    for i, (ids, _) in enumerate(docs):
        indptr[i + 1] = indptr[i] + len(ids)
    indices = np.concatenate([np.asarray(ids, dtype=np.int64) for ids, _ in docs]) if docs else np.zeros(0, np.int64)
    data = np.concatenate([np.asarray(c, dtype=np.float64) for _, c in docs]) if docs else np.zeros(0)
    return sp.csr_matrix((data, indices, indptr), shape=(len(docs), n_words))


class _SklearnTrajectory:
    def __init__(self, owner: SklearnLda, p):
        from sklearn.decomposition import LatentDirichletAllocation

        self.V, self.D = int(p.V), int(p.D)
        self.lda = LatentDirichletAllocation(
            n_components=int(p.K),
            doc_topic_prior=float(p.alpha),
            topic_word_prior=float(p.eta),
            learning_method="online",
            learning_decay=float(p.kappa),
            learning_offset=float(p.tau0),
            total_samples=self.D,
            batch_size=int(p.batch),
            max_doc_update_iter=owner.max_doc_update_iter,
            mean_change_tol=owner.mean_change_tol,
            random_state=int(p.seed) % 2**32,
        )
        self.lda._validate_params()
        self.lda._init_latent_vars(self.V, dtype=np.float64)
        self._set_topics(np.asarray(p.lambda0, dtype=np.float64))
        self._gamma = None
        library_e_step = self.lda._e_step

        def e_step(*args, **kwargs):  # scikit-learn's own E-step; its γ is kept on the way out
            out = library_e_step(*args, **kwargs)
            self._gamma = out[0]
            return out

        self.lda._e_step = e_step

    def _set_topics(self, lam: np.ndarray) -> None:
        from sklearn.decomposition._online_lda_fast import _dirichlet_expectation_2d

        self.lda.components_ = np.array(lam, dtype=np.float64, copy=True)
        self.lda.exp_dirichlet_component_ = np.exp(_dirichlet_expectation_2d(self.lda.components_))

    def update(self, t, lam, docs):
        if not np.array_equal(lam, self.lda.components_):
            self._set_topics(lam)
        self._gamma = None
        self.lda._em_step(_csr(docs, self.V), total_samples=self.D, batch_update=False)
        return self.lda.components_.copy(), self._gamma
