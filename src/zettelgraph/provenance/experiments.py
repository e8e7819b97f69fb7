"""An experiment as PROV: the experiment is an activity whose parts are its LLM calls, the
reader's review of the plan, one execution per tool run and the synthesis that writes the
report.

- the focus term is an entity the reader gave, used by the experiment;
- each LLM call is an activity with its times and tokens, associated with its model;
- the review is the reader's activity, informed by the calls made before it; the strategy it
  approved (or modified) is a `prov:Plan` it generated;
- each tool run is an activity that used the contents it read, associated with zettelgraph
  following that plan; what it found is an entity it generated, derived from those contents
  and from the passages it cites;
- the synthesis used the tool results and was informed by the calls made after the review;
  the report is the entity it generated, derived from every tool result.

A call is taken for planning when it ended by the review (or, with no review, before the
first tool ran), for the synthesis otherwise: the record keeps calls by time, not by stage.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import PurePath
from typing import Any

from prov.constants import PROV
from prov.identifier import QualifiedName

from zettelgraph.experiments.models import DocumentInfo, ExperimentRecord, ToolRun
from zettelgraph.provenance.build import ProvenanceBuilder
from zettelgraph.provenance.names import local_name, snippet

APPROVING = ("approve", "modify")


class _Experiment:
    def __init__(self, builder: ProvenanceBuilder, record: ExperimentRecord) -> None:
        self.b = builder
        self.record = record
        self.local = local_name(record.id)
        self.name = builder.id("experiment", self.local)
        self.documents: dict[str, DocumentInfo] = {d.id: d for d in record.documents}

    def part(self, attributes: dict[Any, Any]) -> dict[Any, Any]:
        """Attributes of one of the experiment's parts, with dcterms:isPartOf the experiment."""
        return {**attributes, self.b.part_of: self.name}

    def id(self, local: str) -> QualifiedName:
        return self.b.id("experiment", f"{self.local}/{local}")

    def content(self, content_id: str) -> QualifiedName:
        """The content as the export has it, or as the record describes it when the store
        does not hold it (any more)."""
        known = self.b.names.get(content_id)
        if known is not None:
            return known
        name = self.b.names[content_id] = self.b.id("content", content_id)
        if self.b.first(name):
            info = self.documents.get(content_id)
            values = (
                {"author": info.author, "year": info.year, "kind": info.kind, "domain": info.domain}
                if info
                else {}
            )
            label = info.title if info else content_id
            self.b.doc.entity(
                name, self.b.attributes(values, kind=self.b.zg("Content"), label=label)
            )
        return name

    def passage(self, citation: dict[str, Any]) -> QualifiedName | None:
        passage_id = citation.get("passage_id")
        if not isinstance(passage_id, str) or not passage_id:
            return None
        known = self.b.names.get(passage_id)
        if known is not None:
            return known
        name = self.b.names[passage_id] = self.b.id("quote", passage_id)
        if self.b.first(name):
            label = snippet(str(citation.get("text", ""))) or passage_id
            values = {"location": citation.get("location")}
            self.b.doc.entity(name, self.b.attributes(values, kind=self.b.zg("Quote"), label=label))
            if isinstance(citation.get("content_id"), str):
                self.b.doc.wasDerivedFrom(name, self.content(citation["content_id"]))
        return name

    def add(self) -> None:
        r, b = self.record, self.b
        term = self.id("term")
        values = {
            "definition": r.term.definition,
            "source": r.term.source,
            "domain": r.term.domain,
            "anchors": ", ".join(r.term.anchors),
        }
        b.doc.entity(term, b.attributes(values, kind=b.zg("FocusTerm"), label=r.term.term))
        b.doc.wasAttributedTo(term, b.reader)
        values = {
            "experimentType": str(r.type),
            "focusTerm": r.term.term,
            "goal": r.goal,
            "status": r.status,
            "runId": r.id,
        }
        label = f"{r.type} experiment on {r.term.term!r}"
        attributes = b.attributes(values, kind=b.zg("Experiment"), label=label)
        b.doc.activity(self.name, r.created_at, r.completed_at, attributes)
        # The reader asked and steers it (the review); zettelgraph runs it.
        b.doc.wasAssociatedWith(self.name, b.reader)
        b.doc.wasAssociatedWith(self.name, b.software)
        b.doc.used(self.name, term)
        for document in r.documents:
            b.doc.used(self.name, self.content(document.id))
        planning, synthesis = self.calls()
        plan = self.review(planning)
        results = [self.tool_run(n, run, plan) for n, run in enumerate(r.tool_runs, 1)]
        self.report([x for x in results if x is not None], synthesis)

    def calls(self) -> tuple[list[QualifiedName], list[QualifiedName]]:
        r, b = self.record, self.b
        first_tool = min((t.started_at for t in r.tool_runs), default=None)
        until: datetime | None = r.reviewed_at or first_tool
        planning: list[QualifiedName] = []
        synthesis: list[QualifiedName] = []
        for n, call in enumerate(r.llm_calls, 1):
            name = self.id(f"call/{n}-{local_name(call.name)}")
            values = {
                "call": call.name,
                "inputTokens": call.input_tokens,
                "outputTokens": call.output_tokens,
                "failed": True if call.failed else None,
            }
            attributes = self.part(b.attributes(values, kind=b.zg("LLMCall"), label=call.name))
            b.doc.activity(name, call.started_at, call.ended_at, attributes)
            b.doc.wasAssociatedWith(name, b.model(call.model))
            (planning if until is None or call.ended_at <= until else synthesis).append(name)
        return planning, synthesis

    def review(self, planning: list[QualifiedName]) -> QualifiedName | None:
        """The reader's decision on the plan; the strategy as a prov:Plan (None if none)."""
        r, b = self.record, self.b
        plan: QualifiedName | None = None
        if r.strategy:
            plan = self.id("strategy")
            tools = "; ".join(f"{doc}: {', '.join(names)}" for doc, names in r.strategy.items())
            label = f"strategy of {r.id}"
            b.doc.entity(plan, b.attributes({"tools": tools}, kind=PROV["Plan"], label=label))
        if r.reviewed_at is None and r.decision is None:
            if plan is not None:
                b.doc.wasAttributedTo(plan, b.software)
            return plan
        review = self.id("review")
        values = {"decision": r.decision, "notes": r.review_notes}
        kind = "Approval" if r.decision in APPROVING else "Decision"
        label = f"review of {r.id}: {r.decision or 'pending'}"
        attributes = self.part(b.attributes(values, kind=b.zg(kind), label=label))
        b.doc.activity(review, None, r.reviewed_at, attributes)
        b.doc.wasAssociatedWith(review, b.reader)
        for name in planning:
            b.doc.wasInformedBy(review, name)
        if plan is not None:
            if r.decision in APPROVING:
                b.doc.wasGeneratedBy(plan, review)
                b.doc.wasAttributedTo(plan, b.reader)
            else:
                b.doc.used(review, plan)
                b.doc.wasAttributedTo(plan, b.software)
        return plan if r.decision in APPROVING else None

    def tool_run(self, n: int, run: ToolRun, plan: QualifiedName | None) -> QualifiedName | None:
        """One tool execution and, unless it failed, the result it generated."""
        b = self.b
        local = f"{n}-{local_name(run.tool)}"
        name = self.id(f"tool/{local}")
        ended = run.started_at + timedelta(seconds=run.seconds)
        values = {"tool": run.tool, "error": run.error}
        attributes = self.part(b.attributes(values, kind=b.zg("ToolExecution"), label=run.tool))
        b.doc.activity(name, run.started_at, ended, attributes)
        b.doc.wasAssociatedWith(name, b.software, plan)
        contents = [self.content(doc) for doc in run.document_ids]
        for content in contents:
            b.doc.used(name, content)
        if run.error is not None:
            return None
        result = self.id(f"result/{local}")
        output = run.output
        values = {"tool": run.tool, "count": output.get("count"), "summary": output.get("summary")}
        label = snippet(str(output.get("summary") or f"{run.tool} result"))
        b.doc.entity(result, b.attributes(values, kind=b.zg("ToolResult"), label=label))
        b.doc.wasGeneratedBy(result, name)
        for content in contents:
            b.doc.wasDerivedFrom(result, content)
        cited = {self.passage(c) for c in output.get("citations") or [] if isinstance(c, dict)}
        for passage in sorted((p for p in cited if p is not None), key=str):
            b.doc.wasDerivedFrom(result, passage)
        return result

    def report(self, results: list[QualifiedName], synthesis: list[QualifiedName]) -> None:
        r, b = self.record, self.b
        if r.completed_at is None and r.report_path is None:
            return
        activity = self.id("synthesis")
        attributes = self.part(b.attributes({}, kind=b.zg("Synthesis"), label="synthesis"))
        b.doc.activity(activity, None, r.completed_at, attributes)
        b.doc.wasAssociatedWith(activity, b.software)
        for call in synthesis:
            b.doc.wasInformedBy(activity, call)
        for result in results:
            b.doc.used(activity, result)
        report = self.id("report")
        # The path under the experiment's folder, not the reader's home directory.
        where = "/".join(PurePath(r.report_path).parts[-2:]) if r.report_path else None
        label = f"report on {r.term.term!r}"
        b.doc.entity(report, b.attributes({"path": where}, kind=b.zg("Report"), label=label))
        b.doc.wasGeneratedBy(report, activity)
        for result in results:
            b.doc.wasDerivedFrom(report, result)
        b.doc.wasAttributedTo(report, b.software)


def add_experiment(builder: ProvenanceBuilder, record: ExperimentRecord) -> None:
    """Add what `record` did to the builder's document."""
    _Experiment(builder, record).add()
