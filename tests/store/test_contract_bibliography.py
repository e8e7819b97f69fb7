"""A document's journal, DOI and abstract (issue 31) read back from every backend and handed
to experiments as the document information their prompts see."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zettelgraph.experiments.registry import document_info
from zettelgraph.models import ChangeSet
from zettelgraph.prompts.experiment_common import documents_block
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.store import GraphStore
from zettelgraph.workflows.experiment.calls import ABSTRACT_PROMPT_CHARS, prompt_documents
from zettelgraph.workflows.experiment.state import Document
from zettelgraph.workflows.records import as_record

if TYPE_CHECKING:
    from conftest import Builders

ABSTRACT = "Estudiamos cómo cambia el uso de la palabra honra entre 1605 y 1876. " * 12


def test_a_documents_journal_doi_and_abstract_reach_the_experiments(
    store: GraphStore, make: Builders
) -> None:
    paper = make.content(
        "La honra en la novela",
        kind="document",
        metadata={
            "journal": "Revista de Filología",
            "doi": "10.3989/rfe.2019.004",
            "abstract": ABSTRACT,
        },
    )
    store.apply(ChangeSet(contents=[paper]))
    stored = store.get_content(paper.id)
    assert stored is not None and stored.metadata == paper.metadata

    info = document_info(store, stored, passages=0)

    assert info.journal == "Revista de Filología"
    assert info.doi == "10.3989/rfe.2019.004"
    assert info.abstract == ABSTRACT
    # The prompts see the journal, the DOI and the abstract's opening.
    document = as_record(Document, info.model_dump(mode="json"))
    [shown] = documents_block(prompt_documents([document], {}, LocalIds("d")))
    assert shown["journal"] == "Revista de Filología" and shown["doi"] == "10.3989/rfe.2019.004"
    assert shown["abstract"].startswith("Estudiamos cómo cambia")
    assert len(shown["abstract"]) == ABSTRACT_PROMPT_CHARS < len(ABSTRACT)
