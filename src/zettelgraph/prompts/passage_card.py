"""Learning items straight from a passage: a question, its short answer, a cloze, wrong
options for a multiple choice and, for code, the expression a code-completion card blanks.

Seed 004's Phase 1A: a PDF, slide deck or source file gives cards as soon as it is read,
before any concept is extracted and reviewed. One call per passage, like `card_question` for
a concept; the checks that follow are the same (`workflows/learning_items/nodes_checks.py`):
the answer must be what the passage says, the question must not hold it, the cloze words
and the code blank must be copied from the passage, and exactly one option is right. A
passage that is a figure (OCR text of a picture, or its caption) gets a question about what
the figure shows.
"""

from __future__ import annotations

import json
from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.prompts.quality import language_name

NAME = "passage_card"
# About 120 output tokens; the limit stops a small model that loses its way.
SAMPLING = Sampling(max_tokens=420, temperature=0.2)
# A passage is a child chunk (about 256 tokens); a longer one is cut, not refused.
MAX_PASSAGE_CHARS = 1500
MAX_WRONG = 3

PassageKind = Literal["text", "code", "figure"]


class PassageCardInput(BaseModel):
    title: str  # the content's title
    place: str = ""  # where the passage is ("p. 3", "lines 4–9", "image 2 (OCR)")
    text: str
    kind: PassageKind = "text"
    language: str = "es"


class PassageCard(BaseModel):
    question: str = Field(
        min_length=5,
        max_length=240,
        description="A question the passage answers, in the requested language. It must not "
        "contain the answer.",
    )
    answer: str = Field(
        min_length=1,
        max_length=160,
        description="The short answer, as the passage says it: a few words, at most one "
        "sentence, in the requested language.",
    )
    cloze_words: str = Field(
        default="",
        max_length=60,
        description="1 to 4 consecutive words copied exactly from the passage, the ones that "
        "carry its idea.",
    )
    wrong_answers: list[str] = Field(
        default_factory=list,
        max_length=MAX_WRONG,
        description="2 or 3 plausible answers to the same question that the passage shows to "
        "be wrong, each as short as the answer.",
    )
    code_blank: str = Field(
        default="",
        max_length=120,
        description="For code only: one expression or one line copied exactly from the code, "
        "the part a reader who understood it could write back. Empty for other passages.",
    )


RULES = {
    "es": """Escribes tarjetas de estudio a partir de un pasaje que un lector ha leído.
Reglas:
- question: una pregunta que el pasaje responde. Que se entienda sola y que NO contenga la
  respuesta.{figure}
- answer: la respuesta tal como la dice el pasaje, breve (unas palabras, como mucho una frase).
- cloze_words: de 1 a 4 palabras seguidas, copiadas tal cual del pasaje, que llevan su idea.
- wrong_answers: 2 o 3 respuestas plausibles a la misma pregunta que el pasaje muestra falsas.
- code_blank: {code}
- Escribe question, answer y wrong_answers en {language}.""",
    "en": """You write study cards from a passage a reader has read.
Rules:
- question: a question the passage answers. It must stand on its own and must NOT contain the
  answer.{figure}
- answer: the answer as the passage says it, short (a few words, at most one sentence).
- cloze_words: 1 to 4 consecutive words copied exactly from the passage, the ones that carry
  its idea.
- wrong_answers: 2 or 3 plausible answers to the same question that the passage shows wrong.
- code_blank: {code}
- Write question, answer and wrong_answers in {language}.""",
}
FIGURE = {
    "es": "\n  El pasaje es el texto de una figura (por OCR, o su pie): pregunta qué muestra.",
    "en": "\n  The passage is the text of a figure (by OCR, or its caption): ask what it shows.",
}
CODE = {
    "es": (
        "una expresión o una línea copiada tal cual del código, la que un lector que lo "
        "entendió sabría escribir.",
        "vacío (el pasaje no es código).",
    ),
    "en": (
        "one expression or one line copied exactly from the code, the part a reader who "
        "understood it could write back.",
        "empty (the passage is not code).",
    ),
}
LABELS = {
    "es": {"text": "Pasaje", "code": "Código", "figure": "Figura"},
    "en": {"text": "Passage", "code": "Code", "figure": "Figure"},
}
# A worked example with its own passage, in the instructions: shown as a bare answer right
# before the reader's passage, the offline model copied it for every passage of a test
# document (`workflows/learning_items/nodes_question.ask_card` now refuses such a copy).
EXAMPLE_PASSAGE = (
    "Quien no sabe esperar no verá crecer nada en su huerto: abandona antes de que la "
    "semilla brote."
)
EXAMPLE_ANSWER = {
    "question": "¿Qué le falta a quien abandona antes de obtener resultados?",
    "answer": "Saber esperar",
    "cloze_words": "sabe esperar",
    "wrong_answers": ["Trabajar más deprisa", "Pedir ayuda"],
    "code_blank": "",
}
EXAMPLE_LEAD = {
    "es": "Ejemplo (otro texto: no lo copies; escribe la tarjeta del pasaje que te den).",
    "en": "Example (another text, in Spanish: do not copy it; write the card of the passage "
    "you are given).",
}
FINAL = {
    "es": "Escribe la tarjeta de este pasaje, no la del ejemplo.",
    "en": "Write the card of this passage, not the example's.",
}


def _clip(text: str, limit: int = MAX_PASSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def messages(data: PassageCardInput) -> list[BaseMessage]:
    """The instructions (fixed within a run, so a prompt cache reads them once), then the
    passage with where it is from."""
    lang = data.language if data.language in RULES else "en"
    code_rule = CODE[lang][0] if data.kind == "code" else CODE[lang][1]
    rules = RULES[lang].format(
        language=language_name(data.language),
        figure=FIGURE[lang] if data.kind == "figure" else "",
        code=code_rule,
    )
    example = json.dumps(EXAMPLE_ANSWER, ensure_ascii=False)
    passage = LABELS[lang]["text"]
    rules += f"\n{EXAMPLE_LEAD[lang]}\n{passage}:\n{EXAMPLE_PASSAGE}\n{example}"
    label = LABELS[lang][data.kind]
    where = f" ({data.place})" if data.place else ""
    # The reminder goes last, where a small model weighs it most.
    human = f"{data.title}{where}\n{label}:\n{_clip(data.text)}\n\n{FINAL[lang]}"
    return [SystemMessage(content=rules), HumanMessage(content=human)]
