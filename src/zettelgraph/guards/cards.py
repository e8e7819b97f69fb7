"""Checks on learning items before the reader sees them (pure functions).

A card is wrong in ways a reader notices at once and forgives badly: an answer the quote does
not say, a question that gives its own answer away, an English card in a Spanish deck, a cloze
that hides "de la", two right options in a multiple choice. Each check returns None when the
card passes, or the reason it does not, in words the report shows next to the card. The
workflow (`workflows/learning_items/nodes_checks.py`) computes the vectors and the language
detector these take, and records every drop with the check's name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from zettelgraph.guards.grounding import cosine
from zettelgraph.guards.language import CONFIDENT_WORDS
from zettelgraph.llm.embeddings import Embedder, embed_queries
from zettelgraph.text.language import DetectLanguage
from zettelgraph.text.normalize import Span, normalize_name, words_of
from zettelgraph.text.stopwords import STOPWORDS

# The checks a card can be dropped by, as the report names them.
CardGuard = Literal["grounding", "leak", "language", "cloze", "mcq", "code", "duplicate", "llm"]

# A cloze hides a short phrase: one idea the reader recalls, not half a sentence.
CLOZE_MAX_WORDS = 4
# A content word has at least this many letters ("vida", "obra"; not "ser", "fe").
CONTENT_MIN_LETTERS = 4
# A multiple choice needs this many wrong options to be more than a coin toss.
MIN_DISTRACTORS = 2
# A right option with this share of its key words in the question is found by matching
# words, not by understanding (small models title a concept with its quote's own words).
ECHO_SHARE = 0.6

# Determiners and joining words Snowball's lists (which search uses, and which are kept as
# they are for it) leave out: a cloze hiding "Cada", or an option "echoing" a quote by
# "mismo", tests nothing.
_MORE_FUNCTION_WORDS = """
cada cualquier cualquiera aquel aquella aquellos aquellas aquello mismo misma mismos mismas tal
tales demás sino aunque pues cuyo cuya cuyos cuyas every whose upon shall thee thou thy thyself
unto mientras además entonces todavía luego después ahora hacia según través incluso solo sólo
aquí allí casi whereas also although however therefore
"""
_FUNCTION_WORDS = STOPWORDS | frozenset(normalize_name(w) for w in _MORE_FUNCTION_WORDS.split())


def repeats_example(answer: Mapping[str, Any], example: Mapping[str, Any]) -> str | None:
    """Why a card call's answer is the prompt's worked example copied (its question or its
    answer, case and accents aside) instead of one written for the text it was given; None
    when it is not. A small model shown an example right before the text copies it whole
    (the offline model did, for every passage of a test document)."""
    for key in ("question", "answer"):
        given, shown = answer.get(key), example.get(key)
        if not (isinstance(given, str) and isinstance(shown, str) and given.strip()):
            continue
        if normalize_name(given) == normalize_name(shown):
            return f"its {key} is the prompt's example, not one written for this text"
    return None


# A question about the text itself ("¿Qué menciona el pasaje?") cannot be answered by a
# learner who sees the card alone, months later: the offline model asked one for a passage
# and answered with the section's title. Articles and demonstratives before the noun only.
_ABOUT_THE_TEXT = re.compile(
    # "este texto", "this passage"; "el pasaje", "the passage" (the prompt's own word), but not
    # "el pasaje de tren" nor "el texto sagrado", which are about the reading's content.
    r"\b(?:este|ese|dicho|this|that)\s+(?:pasaje|texto|fragmento|párrafo|parrafo|passage|"
    r"text|excerpt|paragraph)\b|\b(?:el|del|al|the)\s+(?:pasaje|passage|excerpt)\b(?!\s+(?:de|of)\b)",
    re.IGNORECASE,
)


def about_the_text(question: str) -> str | None:
    """Why a question about a passage does not stand alone: it asks about "the passage" or
    "this text" rather than about what the passage says; None when it does not."""
    found = _ABOUT_THE_TEXT.search(question)
    if found is None:
        return None
    return (
        f"the question asks about «{found.group(0)}», not about what it says: it cannot stand alone"
    )


def is_content_word(word: str) -> bool:
    """A word that carries meaning: not a function word, at least four letters, no digits."""
    if any(ch.isdigit() for ch in word):
        return False
    if sum(ch.isalpha() for ch in word) < CONTENT_MIN_LETTERS:
        return False
    return normalize_name(word) not in _FUNCTION_WORDS


def find_words(words: str, text: str) -> Span | None:
    """Where `words` occur in `text` as whole words, case and accents aside ("Vida" finds
    "vída,"), punctuation between them allowed; the first place, or None."""
    wanted = [normalize_name(w.text) for w in words_of(words)]
    tokens = words_of(text)
    if not wanted:
        return None
    keys = [normalize_name(t.text) for t in tokens]
    for i in range(len(tokens) - len(wanted) + 1):
        if keys[i : i + len(wanted)] == wanted:
            first, last = tokens[i], tokens[i + len(wanted) - 1]
            return Span(first.start, last.end, text[first.start : last.end])
    return None


# --- flashcards ------------------------------------------------------------------------


def answer_similarities(embedder: Embedder, answer: str, quotes: Sequence[str]) -> list[float]:
    """Cosine of a card's answer with each quote, the answer read as a search query of them:
    e5 then puts a right answer above a plausible wrong one far more often (AUC 0.94 against
    0.79 with both read as stored texts; `benchmarks/learning.py --calibrate`); USE reads
    both the same way."""
    asked = embed_queries(embedder, [answer])[0]
    return [cosine(asked, row) for row in embedder.embed(list(quotes))]


def unsupported_answer(score: float, threshold: float) -> str | None:
    """Why an answer is not supported by the quote it cites: its similarity
    (`answer_similarities`) is under `threshold`."""
    if score >= threshold:
        return None
    return f"the answer is not what its quote says (similarity {score:.2f} < {threshold:.2f})"


def leaked_answer(question: str, answer: str) -> str | None:
    """Why a question gives its answer away: it contains the whole answer (case, accents and
    punctuation aside), or every content word of it."""
    asked = [normalize_name(w.text) for w in words_of(question)]
    said = [normalize_name(w.text) for w in words_of(answer)]
    if not said:
        return "the answer is empty"
    n = len(said)
    if any(asked[i : i + n] == said for i in range(len(asked) - n + 1)):
        return "the question contains its answer"
    content = {w for w in said if is_content_word(w)}
    if content and content <= set(asked):
        return f"the question contains every key word of its answer ({', '.join(sorted(content))})"
    return None


def off_language(question: str, answer: str, language: str, detect: DetectLanguage) -> str | None:
    """Why a card is not in the graph's language: the question or the answer is detected in
    another one. As with concepts (guards/language.py), a text under eight words only counts
    when question and answer together read as another language too, since a short Spanish
    line can read as Portuguese; a text under four words is not judged at all."""
    body = f"{question} {answer}"
    body_language = detect(body)
    off = []
    for name, text in (("question", question), ("answer", answer)):
        found = detect(text)
        if found is None or found == language:
            continue
        if len(text.split()) < CONFIDENT_WORDS and body_language == language:
            continue
        off.append(f"the {name} reads as {found}")
    long_enough = len(body.split()) >= CONFIDENT_WORDS
    if not off and long_enough and body_language not in (None, language):
        off.append(f"question and answer read as {body_language}")
    return f"{'; '.join(off)}, not {language}" if off else None


# --- cloze -----------------------------------------------------------------------------


def cloze_problem(words: str, quote: str) -> str | None:
    """Why `words` cannot be the deletion of a cloze on `quote`: they must be 1 to 4
    consecutive words of the quote (case and accents aside, whole words), hold a content
    word, and be less than half of the quote's words."""
    given = words_of(words)
    if not given:
        return "no words given"
    if len(given) > CLOZE_MAX_WORDS:
        return f"«{words.strip()}» is {len(given)} words; a cloze hides 1 to {CLOZE_MAX_WORDS}"
    span = find_words(words, quote)
    if span is None:
        return f"«{words.strip()}» is not in the quote"
    if not any(is_content_word(w.text) for w in given):
        return f"«{span.text}» holds no content word (only short or function words)"
    total = len(words_of(quote))
    if len(given) * 2 >= total:
        return f"«{span.text}» hides {len(given)} of the quote's {total} words"
    return None


def cloze_candidates(quote: str) -> list[Span]:
    """Single words of the quote that would make a valid cloze, once each, in reading order."""
    seen: set[str] = set()
    out = []
    for word in words_of(quote):
        key = normalize_name(word.text)
        if key in seen or cloze_problem(word.text, quote) is not None:
            continue
        seen.add(key)
        out.append(word)
    return out


def pick_cloze_word(candidates: Sequence[Span], scores: Sequence[float]) -> Span | None:
    """The candidate closest to the concept (`scores`, one per candidate); ties go to the
    longer word, then the earlier one. None when there is no candidate."""
    if not candidates:
        return None
    best = max(
        range(len(candidates)),
        key=lambda i: (round(scores[i], 6), len(candidates[i].text), -i),
    )
    return candidates[best]


# --- multiple choice -------------------------------------------------------------------


def distractor_problem(
    title: str,
    *,
    right_title: str,
    chosen_titles: Sequence[str],
    shares_the_quote: bool,
    similarity: float,
    merge_threshold: float,
) -> str | None:
    """Why a concept cannot be a wrong option: the quote supports it too (a second right
    answer), or its title is the right one's or a chosen one's (normalised), or it is as
    close to the right concept as two candidates that extraction merges (`similarity`, its
    highest cosine to the right concept or a chosen option)."""
    if shares_the_quote:
        return "the quote supports it too: it would be a second right answer"
    key = normalize_name(title)
    if key == normalize_name(right_title) or key in {normalize_name(t) for t in chosen_titles}:
        return "its title repeats another option's"
    if similarity >= merge_threshold:
        return f"it says nearly the same (similarity {similarity:.2f} >= {merge_threshold:.2f})"
    return None


def echoed_option(option: str, shown: str) -> str | None:
    """Why an option gives itself away: most of its key words (ECHO_SHARE, and at least
    two, or its only one) are words of what the learner is shown."""
    keys = {normalize_name(w.text) for w in words_of(option) if is_content_word(w.text)}
    if not keys:
        return None
    seen = {normalize_name(w.text) for w in words_of(shown)}
    echoed = keys & seen
    if len(echoed) >= min(2, len(keys)) and len(echoed) / len(keys) >= ECHO_SHARE:
        return (
            f"the right option repeats the quote's own words ({', '.join(sorted(echoed))}): "
            "it is found by matching words, not by knowing the idea"
        )
    return None


def mcq_problem(
    options: Sequence[str], correct: int | None, right: str, shown: str = ""
) -> str | None:
    """Why a multiple choice is unusable: it must mark exactly one option, the right one,
    have distinct options, at least MIN_DISTRACTORS wrong ones, and a right option that
    does not echo the words of `shown` (the front the learner reads)."""
    if correct is None or not 0 <= correct < len(options):
        return "no option is marked correct"
    keys = [normalize_name(o) for o in options]
    if len(set(keys)) != len(keys):
        return "two options read the same"
    if keys[correct] != normalize_name(right):
        return "the option marked correct is not the right answer"
    if len(options) - 1 < MIN_DISTRACTORS:
        return f"{len(options) - 1} wrong option(s); at least {MIN_DISTRACTORS} are needed"
    return echoed_option(right, shown)


def option_in_passage(option: str, passage: str) -> str | None:
    """Why a wrong option of a card made from a passage may be right after all: the passage
    says it, word for word (a content word at least; "no" or "de la" do not count)."""
    if not any(is_content_word(w.text) for w in words_of(option)):
        return None
    span = find_words(option, passage)
    if span is None:
        return None
    return f"the passage says «{span.text}» too: a second right option"


# --- code completion -------------------------------------------------------------------

# A blank is one expression or one line: longer is copying, not recall.
CODE_BLANK_MAX_CHARS = 120
_COMMENT_STARTS = ("#", "//", "--", "/*", "*", '"""', "'''")


def code_blank_problem(blank: str, code: str) -> str | None:
    """Why `blank` cannot be what a code-completion card hides: it must be copied exactly
    from one line of the code (spaces at its ends aside), hold a letter or digit, be at most
    CODE_BLANK_MAX_CHARS, and leave some of the code to read."""
    wanted = blank.strip()
    if not wanted:
        return "no code given to blank"
    if "\n" in wanted:
        return "the blank spans several lines; a code card hides one expression or one line"
    if len(wanted) > CODE_BLANK_MAX_CHARS:
        return f"the blank is {len(wanted)} characters; at most {CODE_BLANK_MAX_CHARS}"
    if not any(ch.isalnum() for ch in wanted):
        return f"«{wanted}» holds no name or value"
    if wanted not in code:
        return f"«{wanted}» is not in the code (it must be copied exactly)"
    if code.count(wanted) > 1:
        return f"«{wanted}» is {code.count(wanted)} times in the code: the rest gives it away"
    if len(wanted) * 2 >= len(code.strip()):
        return f"«{wanted}» is half the code or more"
    return None


def pick_code_blank(code: str) -> Span | None:
    """The part of the code to hide when the model's blank fails its check: the value of the
    last assignment or return (`x = VALUE`, `return VALUE`), else the last line that is not
    a comment or a lone bracket; None when no part passes `code_blank_problem`."""
    lines: list[tuple[int, str]] = []
    offset = 0
    for line in code.splitlines(keepends=True):
        lines.append((offset, line.rstrip("\r\n")))
        offset += len(line)
    candidates: list[Span] = []
    for start, line in lines:
        body = line.strip()
        if not body or body.startswith(_COMMENT_STARTS) or not any(c.isalnum() for c in body):
            continue
        lead = start + len(line) - len(line.lstrip())
        value = _value_of(body)
        at = lead + body.index(value) if value else lead
        text = value or body
        candidates.append(Span(at, at + len(text), text))
    for span in reversed(candidates):
        if code_blank_problem(span.text, code) is None:
            return span
    return None


def _value_of(line: str) -> str:
    """What an assignment gives or a return returns, when the line is one (else "")."""
    for keyword in ("return ", "yield "):
        if line.startswith(keyword):
            return line[len(keyword) :].strip().rstrip(";")
    if "=" in line and not line.startswith(("if ", "elif ", "while ", "for ", "def ", "class ")):
        left, _, right = line.partition("=")
        if left and left[-1] not in "=!<>" and right and right[0] != "=":
            return right.strip().rstrip(";")
    return ""
