"""The review page shows what the model said beyond its concepts (issue 16, seed 000 step
2.1): its extraction notes, and why it left each quote out. Real store and checkpoints, fake
LLM scripted per call."""

from __future__ import annotations

from html import escape

from .conftest import MEDITATIONS, MakeWeb

REASON = "Only a greeting: it states no idea."
NOTES = "Two quotes on duty read best together."


def test_review_page_shows_extraction_notes_and_unattributed_reasons(make_web: MakeWeb) -> None:
    web = make_web(MEDITATIONS, extraction_batch_size=500)
    web.llm.replies = {
        "extract_concepts": [
            {
                "candidate_concepts": [
                    {
                        "title": "El deber ante todo",
                        "concept": "Cumplir el deber es lo primero para quien quiere vivir bien.",
                        "analysis": "Un principio estoico.",
                        "summary_short": "El deber primero.",
                        "source_quote_ids": ["q1"],
                    }
                ],
                "unattributed_quotes": [{"quote_id": "q2", "reason": REASON}],
                "extraction_notes": NOTES,
            }
        ],
        "self_critique": [
            {
                "failed_criteria": [],
                "issues": [],
                "overall_passes": True,
                "critique_summary": "Bien.",
                "improvement_suggestions": [],
            }
        ],
    }
    run = web.start_run()
    html = web.client.get(f"/runs/{run['run_id']}").text
    assert 'id="unattributed"' in html
    assert f'<span class="label">Por qué:</span> {escape(REASON)}' in html
    assert 'id="notes"' in html and escape(NOTES) in html
