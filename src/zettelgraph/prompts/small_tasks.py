"""What each small-model task (`settings.small_model_task`, docs/design.md "Small-model tasks")
asks of the one-quote calls: the statement rule, the worked example and the last line of
`extract_concepts`, shared with `gloss_quote` and `repair_concept`. The words of today's
compact answer (`paraphrase`) are kept as they were."""

from __future__ import annotations

from zettelgraph.settings import SmallModelTask

# The tasks that keep or explain the quote's words show a quote in older Spanish, so the model
# sees an old word changed ("ha de" -> "debe") and a simile kept as a simile.
OLD_QUOTE_TEXT = "No ha de fiarse el discreto de la fortuna, que es mudable como la luna."
OLD_KEY_WORDS = ["fiarse", "discreto", "fortuna", "mudable"]
OLD_TITLE = "No fiarse de la fortuna mudable"
OLD_STATEMENTS = {
    "extractive": "El prudente no debe fiarse de la fortuna, porque cambia como la luna.",
    "meaning": "Una persona sensata no cuenta con la buena suerte, porque la suerte cambia "
    "tanto como las fases de la luna.",
}
# Task `gloss`: the example quote with its gloss under it, as the model will see its own.
EXAMPLE_GLOSS = (
    "Sin paciencia no se logra nada que necesite tiempo, como lo que se siembra en un huerto."
)

PARAPHRASE_RULE = {
    "es": """
- concept: la idea general que la cita ilustra, dicha con otras palabras y válida también
  fuera de este libro. No copies la cita.""",
    "en": """
- concept: the general idea the quote illustrates, said in other words and true beyond this
  book. Do not copy the quote.""",
}
# What `concept` is, per task (docs/design.md, "Small-model tasks").
STATEMENT_RULE: dict[SmallModelTask, dict[str, str]] = {
    "paraphrase": PARAPHRASE_RULE,
    "extractive": {
        "es": """
- concept: lo que afirma la cita, en una o dos frases de español actual y sencillo: conserva
  sus palabras que sigan vigentes, cambia las anticuadas y no añadas nada que la cita no diga.
  Si la cita está en otro idioma, tradúcela fielmente.""",
        "en": """
- concept: what the quote states, in one or two sentences of plain modern {language}: keep
  its words that are still current, change the old ones and add nothing the quote does not
  say. A quote in another language is translated faithfully.""",
    },
    "meaning": {
        "es": """
- concept: lo que quiere decir la cita, en una o dos frases de español actual y sencillo:
  explica sus palabras anticuadas, deja una comparación como comparación y una ironía como
  ironía, y no añadas nada que la cita no diga.""",
        "en": """
- concept: what the quote means, in one or two sentences of plain modern {language}: explain
  its old words, keep a simile as a simile and irony as irony, and add nothing the quote does
  not say.""",
    },
    "gloss": {
        "es": PARAPHRASE_RULE["es"]
        + """
- Bajo la cita va su sentido en español actual: parte de él y no lo contradigas.""",
        "en": PARAPHRASE_RULE["en"]
        + """
- Under the quote is its meaning in plain {language}: start from it, never contradict it.""",
    },
    "titles": {"es": "", "en": ""},
}
READING = {
    "gloss": {"es": "Sentido", "en": "Meaning"},
    "titles": {"es": "Traducción", "en": "Translation"},
}
# The last line of a compact call, per task: where a small model weighs it most.
COMPACT_FINAL: dict[SmallModelTask, dict[str, str]] = {
    "extractive": {
        "es": "\nEscribe title y concept en español actual; concept con las palabras de la cita "
        "que sigan vigentes; title con una o dos palabras clave de la cita.",
        "en": "\nWrite title and concept in plain modern {language}; concept with the quote's "
        "words that are still current; title with one or two of the quote's key words.",
    },
    "meaning": {
        "es": "\nEscribe title y concept en español actual: concept dice lo que quiere decir la "
        "cita; title con una o dos palabras clave de la cita.",
        "en": "\nWrite title and concept in plain modern {language}: concept says what the "
        "quote means; title with one or two of the quote's key words.",
    },
    "titles": {
        "es": "\nEscribe solo title, en español: 2 a 6 palabras que nombren la idea de la cita, "
        "con una o dos de sus palabras clave.",
        "en": "\nWrite only title, in {language}: 2 to 6 words naming the quote's idea, with "
        "one or two of its key words.",
    },
}
