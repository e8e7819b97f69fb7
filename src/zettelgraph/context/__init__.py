"""The one bundle of collaborators every workflow node receives at graph build time, and
every service with it: the CLI, the web app and the MCP server open it and pass it on.

Tests, the CLI and the web app each build their own; nothing here is global.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from zettelgraph.context.author_search import AuthorEnricher, author_enricher
from zettelgraph.context.doubt_probe import doubt_probe_for
from zettelgraph.guards.doubt import DoubtModel, load_models
from zettelgraph.guards.doubt_probe import Probe
from zettelgraph.llm.embeddings import Embedder, embedder_from_settings
from zettelgraph.llm.factory import ChatModels, LLMConfigError
from zettelgraph.llm.structured import Sampling
from zettelgraph.llm.usage import UsageLog
from zettelgraph.packs.loader import active_schema, shipped_schema
from zettelgraph.packs.relations import CONCEPT_TYPE, RelationVocabulary, vocabulary_from
from zettelgraph.packs.schema import PackSchema
from zettelgraph.settings import DEFAULT_PACKS, Settings
from zettelgraph.store import GraphStore, open_store
from zettelgraph.store.base import EmbedderMismatchError
from zettelgraph.text.language import DetectLanguage, detector_for
from zettelgraph.thresholds import Thresholds, thresholds_for
from zettelgraph.vault.writer import Vault

T = TypeVar("T", bound=BaseModel)
_LOG = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    store: GraphStore
    embedder: Embedder
    llms: ChatModels
    usage: UsageLog = field(default_factory=UsageLog)
    enrich_author: AuthorEnricher | None = None
    language_detector: DetectLanguage | None = None
    # The active template packs merged (`open_services` reads them once from the settings).
    packs: PackSchema = field(default_factory=lambda: shipped_schema(DEFAULT_PACKS))
    # The doubt flags' models by kind, and why the reader's own could not be used (if so);
    # read on first use from the calibration file, or injected.
    doubt_models_given: dict[str, DoubtModel] | None = None
    doubt_warning: str | None = None
    # The probe behind the doubt signal `like_kept` and the embedder of its space, chosen on
    # first use (`doubt_probe_for`); None when no shipped probe fits this setup.
    doubt_probe_given: tuple[Probe, Embedder] | None = None
    doubt_probe_chosen: bool = False

    @property
    def thresholds(self) -> Thresholds:
        """The cosine thresholds of the embedder this run uses, with the reader's settings in
        their place (`zettelgraph/thresholds.py`)."""
        return thresholds_for(self.settings, self.embedder.name)

    @property
    def doubt_models(self) -> dict[str, DoubtModel]:
        """The doubt flags' models: the reader's calibration, else the shipped one."""
        if self.doubt_models_given is None:
            self.doubt_models_given, self.doubt_warning = load_models(
                self.settings.calibration_path
            )
        return self.doubt_models_given

    @property
    def doubt_probe(self) -> tuple[Probe, Embedder] | None:
        """The probe of the doubt signal `like_kept` and the embedder it reads vectors from."""
        if not self.doubt_probe_chosen:
            self.doubt_probe_given = doubt_probe_for(self.settings, self.embedder)
            self.doubt_probe_chosen = True
        return self.doubt_probe_given

    @property
    def detect_language(self) -> DetectLanguage:
        """The language detector of the proposal checks (lingua unless one was given)."""
        if self.language_detector is None:
            self.language_detector = detector_for(self.settings.concept_language)
        return self.language_detector

    @property
    def store_vocabulary(self) -> RelationVocabulary:
        """The relation vocabulary the store enforces: the active packs' when `open_services`
        opened the store, an injected store's own otherwise."""
        vocabulary: RelationVocabulary | None = getattr(self.store, "vocabulary", None)
        return vocabulary if vocabulary is not None else vocabulary_from(self.packs)

    @property
    def concept_vocabulary(self) -> RelationVocabulary:
        """The Concept -> Concept part of the store's vocabulary: what the concept workflow
        offers the model, checks, and writes in the vault (the zettelkasten pack's types)."""
        return self.store_vocabulary.between(CONCEPT_TYPE, CONCEPT_TYPE)

    @property
    def vault(self) -> Vault:
        return Vault(
            self.settings.vault_path,
            self.concept_vocabulary,
            language=self.settings.concept_language,
        )

    def structured(
        self,
        llm: BaseChatModel,
        *,
        name: str,
        messages: Sequence[BaseMessage],
        response_model: type[T],
        sampling: Sampling | None = None,
        schema: dict[str, Any] | None = None,
        usage: UsageLog | None = None,
    ) -> T:
        """`call_structured` with the retry settings, recorded in this run's usage log (or in
        `usage`, a log of the caller's own that is then merged into the run's)."""
        own = usage or UsageLog()
        try:
            return self.llms.structured(
                llm,
                name=name,
                messages=messages,
                response_model=response_model,
                usage=own,
                sampling=sampling,
                schema=schema,
            )
        finally:
            self.usage.merge(own)

    def check_embedder(self) -> None:
        """Raise EmbedderMismatchError when the store's vectors come from another embedder:
        searching them with this one would rank nonsense, and writing beside them would mix
        two vector spaces."""
        info = self.store.embedding_info()
        if info is not None and info.model != self.embedder.name:
            raise EmbedderMismatchError(
                f"the store holds vectors from {info.model!r}, the configured embedder is "
                f"{self.embedder.name!r}: set ZETTELGRAPH_EMBEDDINGS={info.model} or run "
                "`zettelgraph reindex`"
            )

    def close(self) -> None:
        self.llms.close()
        self.store.close()
        close_embedder: Callable[[], None] | None = getattr(self.embedder, "close", None)
        if close_embedder is not None:
            close_embedder()


def with_store_embedder(settings: Settings, store: GraphStore) -> Settings:
    """`settings` with the embedder the store's vectors come from, when the reader chose none:
    a store built before the default became e5-small keeps USE (its vectors and thresholds)
    until `zettelgraph reindex` moves it. An embedder the reader names is used as named, and
    a store of another embedder is then refused (`check_embedder`)."""
    if "embeddings" in settings.model_fields_set:
        return settings
    info = store.embedding_info()
    if info is None or info.model == settings.embeddings:
        return settings
    return settings.model_copy(update={"embeddings": info.model})


def open_services(
    settings: Settings,
    *,
    store: GraphStore | None = None,
    embedder: Embedder | None = None,
    llms: ChatModels | None = None,
    on_notice: Callable[[str], None] | None = None,
    follow_store: bool = True,
) -> Services:
    """Services from settings; any collaborator can be injected instead. An active pack that
    cannot be used raises PackError (naming its file and line) before anything is opened,
    unless it is a user pack: then `on_notice` (else the log) is told, and the shipped pack of
    its name stands in, so a pack being edited never stops the commands that do not extract
    with it (graph extraction reads the packs again and reports the error). With
    `follow_store` (all but `reindex`), a store keeps the embedder it was built with unless
    the reader names one (`with_store_embedder`)."""
    settings.home.mkdir(parents=True, exist_ok=True)
    packs = active_schema(settings, warn=on_notice or _LOG.warning)
    opened = store is None
    store = store or open_store(settings.store_url, vocabulary_from(packs))
    if embedder is None:
        try:
            if follow_store:
                settings = with_store_embedder(settings, store)
            embedder = embedder_from_settings(settings)
        except BaseException:
            if opened:
                store.close()
            raise
    services = Services(
        settings=settings,
        store=store,
        embedder=embedder,
        llms=llms or ChatModels(settings, on_notice=on_notice),
        packs=packs,
    )
    if _writes_author_bio(services):
        services.enrich_author = author_enricher(settings, services.llms, services.usage)
    return services


def _writes_author_bio(services: Services) -> bool:
    """The fast model's profile's `writes_author_bio`; with no model configured or installed
    no biography is written (book notes are ingested without one, as on the offline model)."""
    try:
        return services.llms.fast_profile.writes_author_bio
    except LLMConfigError:
        return False
