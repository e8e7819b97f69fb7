"""The effective configuration as a reader sees it: every setting with the value a run would
use, not a blank where the default depends on the model or the machine."""

from __future__ import annotations

from pydantic import SecretStr

from zettelgraph.context import with_store_embedder
from zettelgraph.ingest.ocr import OcrUnavailableError, find_tesseract
from zettelgraph.llm.factory import ChatModels, LLMConfigError
from zettelgraph.llm.profile import ModelProfile
from zettelgraph.settings import Settings
from zettelgraph.store import open_store, sqlite_path
from zettelgraph.text.masking import mask_url_password
from zettelgraph.thresholds import SETTINGS as THRESHOLD_SETTINGS
from zettelgraph.thresholds import thresholds_for

NO_MODEL = "(none: no LLM is configured and no local model is installed)"
NO_TESSERACT = "(not found: text in images and scans cannot be read)"


def effective_settings(settings: Settings) -> dict[str, str]:
    """Every setting's effective value, secrets masked. The model-dependent defaults come from
    the profiles of the models a run would use (the factory's choice when ZETTELGRAPH_LLM is
    unset); the Tesseract program is the one OCR would run.

    Args:
        settings: the settings as loaded (environment and `.env`).

    Returns:
        Setting name -> the value shown, as `masked` gives it, with the model-dependent ones, the
        embedder's cosine thresholds and `tesseract` filled in (a line saying why when the
        model or Tesseract cannot be used).
    """
    shown = masked(settings)
    # The embedder a run would use (a store keeps the one it was built with unless you name
    # one), and the cosine thresholds left unset are that embedder's (`thresholds.py`).
    embedder = embedder_in_use(settings)
    shown["embeddings"] = embedder
    numbers = thresholds_for(settings, embedder)
    shown.update({name: str(getattr(numbers, f[0])) for name, f in THRESHOLD_SETTINGS.items()})
    models = ChatModels(settings)
    try:
        main, fast = models.main_profile, models.fast_profile
    except LLMConfigError:
        shown["llm"] = NO_MODEL
    else:
        shown.update({name: str(value) for name, value in model_defaults(main, fast).items()})
    try:
        shown["tesseract"] = find_tesseract(settings.tesseract)
    except OcrUnavailableError:
        shown["tesseract"] = f"{settings.tesseract or 'tesseract'} {NO_TESSERACT}"
    return shown


def embedder_in_use(settings: Settings) -> str:
    """The embedder a run would use.

    Args:
        settings: the settings as loaded.

    Returns:
        The embedder the settings name; else the one the store was built with (read from a
        SQLite store that exists: a server store is not reached for this); else the default.
    """
    path = sqlite_path(settings.store_url)
    if "embeddings" in settings.model_fields_set or path is None or not path.is_file():
        return settings.embeddings
    store = open_store(settings.store_url)
    try:
        return with_store_embedder(settings, store).embeddings
    finally:
        store.close()


def model_defaults(main: ModelProfile, fast: ModelProfile) -> dict[str, str | int | bool]:
    """What each setting whose default depends on the model takes with these models (a value
    you set wins): `zettelgraph config` shows these rather than a blank.

    Args:
        main: the profile of the main model.
        fast: the profile of the fast model (used for author notes).

    Returns:
        Setting name -> the value these models give it.
    """
    return {
        "llm": main.spec,
        "llm_fast": fast.spec,
        "extraction_batch_size": main.batch_size,
        "critique_max_iterations": main.refine_rounds,
        "self_critique": main.critique_enabled,
        "cover_quotes": main.covers_quotes,
        "compact_answers": main.compact,
        "book_summary": main.writes_book_summary,
        "author_bio": fast.writes_author_bio,
        "confirmed_relations": main.only_confirmed_relations,
        "max_concurrency": main.concurrency,
    }


def masked(settings: Settings) -> dict[str, str]:
    """Effective values for display, with secrets and URL passwords hidden.

    Args:
        settings: the settings as loaded.

    Returns:
        Setting name -> its value as text: secrets as `********` (empty when unset), passwords in
        URLs masked, lists comma-separated, unset values empty; with `store`, `checkpoints` and
        `vault` added.
    """
    shown: dict[str, str] = {}
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            text = "********" if value.get_secret_value() else ""
        elif value is None:
            text = ""
        elif isinstance(value, list):
            text = ",".join(str(item) for item in value)
        else:
            text = mask_url_password(str(value))
        shown[name] = text
    shown["store"] = mask_url_password(settings.store_url)
    shown["checkpoints"] = mask_url_password(settings.checkpoints_url)
    shown["vault"] = str(settings.vault_path)
    return shown
