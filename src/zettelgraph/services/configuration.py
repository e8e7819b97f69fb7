"""The effective configuration as a reader sees it: every setting with the value a run would
use, not a blank where the default depends on the model or the machine."""

from __future__ import annotations

from zettelgraph.ingest.ocr import OcrUnavailableError, find_tesseract
from zettelgraph.llm.factory import ChatModels, LLMConfigError
from zettelgraph.settings import Settings

NO_MODEL = "(none: no LLM is configured and no local model is installed)"
NO_TESSERACT = "(not found: text in images and scans cannot be read)"


def effective_settings(settings: Settings) -> dict[str, str]:
    """Every setting's effective value, secrets masked. The model-dependent defaults come from
    `Settings.model_defaults` with the models a run would use (the factory's choice when
    ZETTELGRAPH_LLM is unset); the Tesseract program is the one OCR would run."""
    shown = settings.masked()
    models = ChatModels(settings)
    try:
        main, fast = models.main_spec, models.fast_spec
    except LLMConfigError:
        shown["llm"] = NO_MODEL
    else:
        shown.update(
            {name: str(value) for name, value in settings.model_defaults(main, fast).items()}
        )
    try:
        shown["tesseract"] = find_tesseract(settings.tesseract)
    except OcrUnavailableError:
        shown["tesseract"] = f"{settings.tesseract or 'tesseract'} {NO_TESSERACT}"
    return shown
