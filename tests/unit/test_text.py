"""clip_words: a word budget that prefers to cut at a sentence end."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from zettelgraph.text.summaries import clip_words


def test_short_text_is_kept_with_spacing_normalised() -> None:
    assert clip_words("Una  idea\nbreve.", 5) == "Una idea breve."
    assert clip_words("uno dos tres", 3) == "uno dos tres"


def test_cuts_at_a_sentence_end_in_the_second_half() -> None:
    text = "Uno dos tres cuatro cinco. Seis siete ocho nueve diez."
    assert clip_words(text, 7) == "Uno dos tres cuatro cinco."


def test_cuts_at_the_last_sentence_end_that_fits() -> None:
    text = "Uno dos. Tres cuatro? Cinco seis! Siete ocho nueve diez once."
    assert clip_words(text, 8) == "Uno dos. Tres cuatro? Cinco seis!"


def test_ignores_a_sentence_end_in_the_first_half() -> None:
    text = "Uno. Dos tres cuatro cinco seis siete ocho nueve diez."
    clipped = clip_words(text, 6)
    assert clipped == "Uno. Dos tres cuatro cinco seis…"


def test_without_a_sentence_end_marks_the_cut() -> None:
    text = "uno dos tres cuatro, cinco seis siete"
    assert clip_words(text, 4) == "uno dos tres cuatro…"


def test_ellipsis_counts_as_a_sentence_end() -> None:
    text = "uno dos tres cuatro… cinco seis siete"
    assert clip_words(text, 5) == "uno dos tres cuatro…"


def test_a_dot_inside_a_word_is_not_a_sentence_end() -> None:
    text = "uno dos tres versión 2.5 seis siete ocho"
    assert clip_words(text, 5) == "uno dos tres versión 2.5…"


@given(
    words=st.lists(
        st.text(alphabet=st.characters(blacklist_categories=["Z", "C"]), min_size=1, max_size=8),
        max_size=60,
    ),
    max_words=st.integers(min_value=1, max_value=40),
)
def test_never_more_than_max_words_and_always_a_prefix(words: list[str], max_words: int) -> None:
    text = " ".join(words)
    clipped = clip_words(text, max_words)
    out = clipped.split()
    assert len(out) <= max_words
    if len(words) <= max_words:
        assert out == text.split()
    else:
        assert out, "something is always kept"
        # Every word but the last is the original word; the last may lose trailing
        # punctuation or gain the ellipsis.
        assert out[:-1] == words[: len(out) - 1]
        assert clipped.endswith("…") or out[-1] == words[len(out) - 1]


def test_a_looping_statement_keeps_each_sentence_once_and_drops_the_cut_one() -> None:
    from zettelgraph.text.summaries import tidy_statement

    looped = (
        "La iglesia es un lugar de culto. Sancho es un personaje. La iglesia es un lugar de "
        "culto. Sancho es un person"
    )
    assert tidy_statement(looped) == "La iglesia es un lugar de culto. Sancho es un personaje."
    # Nothing finished before it: the text is kept as it is.
    assert tidy_statement("Una idea sin punto final") == "Una idea sin punto final"
    assert tidy_statement("  Uno.   Dos.  ") == "Uno. Dos."
    assert tidy_statement("") == ""
    # A clause said again within the sentence is said once.
    assert tidy_statement(
        "La vida es un esparcimiento, es un esparcimiento, es un esparcimiento."
    ) == ("La vida es un esparcimiento.")
    assert tidy_statement("Leer, leer y leer, pensar.") == "Leer, leer y leer, pensar."


def test_a_statement_drops_the_page_reference_it_copied_from_its_quote() -> None:
    from zettelgraph.text.summaries import tidy_statement

    # A model that keeps the quote's words copied the "(p. 12)" the prompt shows after it; cut
    # by the length bound it was left as "(p.".
    assert tidy_statement("Todo lo gasta un mal modo, hasta la razón. (p.") == (
        "Todo lo gasta un mal modo, hasta la razón."
    )
    assert tidy_statement("Es fácil (p. 7-8). Y más.") == "Es fácil. Y más."
    assert tidy_statement("La razón (política) manda.") == "La razón (política) manda."
