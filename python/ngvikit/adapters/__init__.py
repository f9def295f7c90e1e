"""Adapters that put the field's implementations to the kit's claims: online LDA through the
``svi-lda`` protocol, BayesPy's stochastic VB on the Gaussian mixture through ``svi-gmm``, and
natural-gradient VI written in PyTorch through ``conjugate-ngd`` and ``lsk-update`` (docs/python.md; docs/systems.md, "External implementations").

Each adapter drives the real library, step by step, on the claim's minibatches: it maps the
problem's α, η, κ, τ₀, K and D onto the library's own parameters, sets the library's topics from the
λ the claim hands, calls the library's own update, and returns the library's λ. Nothing of the
algorithm is re-implemented here.

``SklearnLda``  scikit-learn's ``LatentDirichletAllocation(learning_method="online")``, one
                ``_em_step`` per update (``sklearn_lda.py``);
``GensimLda``   gensim's ``LdaModel``, one ``update`` per minibatch (``gensim_lda.py``);
``BayesPyGmm``  BayesPy's ``Mixture`` of Gaussians, one local ``VB.update`` and one
                ``VB.gradient_step`` per minibatch (``bayespy_gmm.py``);
``TorchVon``    the kit's own PyTorch port of variational online Newton / the Bayesian learning rule
                for a full Gaussian, autograd gradients and Hessians (``torch_von.py``): no
                maintained package ships this update, so it is labelled as the kit's port;
``TorchLsk``    the kit's own PyTorch port of the positive-definite LSK update (Lin, Schmidt & Khan
                2020) behind ``lsk-update``, with autograd expectations for use on a log density
                (``torch_lsk.py``).

:func:`available` lists the adapters whose library imports, with the reason for each that does not.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SklearnLda", "GensimLda", "BayesPyGmm", "TorchVon", "TorchLsk", "available"]


def __getattr__(name: str) -> Any:
    # The adapters import their library when they are made, not when this package is imported.
    if name == "SklearnLda":
        from .sklearn_lda import SklearnLda

        return SklearnLda
    if name == "GensimLda":
        from .gensim_lda import GensimLda

        return GensimLda
    if name == "BayesPyGmm":
        from .bayespy_gmm import BayesPyGmm

        return BayesPyGmm
    if name == "TorchVon":
        from .torch_von import TorchVon

        return TorchVon
    if name == "TorchLsk":
        from .torch_lsk import TorchLsk

        return TorchLsk
    raise AttributeError(f"module 'ngvikit.adapters' has no attribute '{name}'")


def available() -> tuple[dict, dict]:
    """``(adapters, missing)``: the adapter classes whose library imports, by name, and for each
    other adapter the reason (the ImportError's message)."""
    found: dict = {}
    missing: dict = {}
    for name, module, library in (
        ("SklearnLda", "sklearn_lda", "sklearn"),
        ("GensimLda", "gensim_lda", "gensim"),
        ("BayesPyGmm", "bayespy_gmm", "bayespy"),
        ("TorchVon", "torch_von", "torch"),
        ("TorchLsk", "torch_lsk", "torch"),
    ):
        try:
            __import__(library)
        except ImportError as e:
            missing[name] = f"{library} is not installed ({e})"
            continue
        mod = __import__(f"{__name__}.{module}", fromlist=[name])
        found[name] = getattr(mod, name)
    return found, missing
