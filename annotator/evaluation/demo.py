"""Extra set-up of the evaluation demo projects: model QA pairs (one of them invalid on
purpose), the rating sample, reference QAs and recall candidates, sentence alignments.

The demo uses the word-hashing embedder so it starts in a second; run
``annotator eval mine-recall demo-qa-recall`` / ``annotator prehighlight demo-plainfact``
for the embedding model's similarities and alignment."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from annotator.align.embeddings import HashingEmbedder
from annotator.align.pipeline import analyse_pair
from annotator.align.store import sentence_groups
from annotator.annotate.modes import project_mode
from annotator.evaluation.qa_import import import_predictions, import_references
from annotator.evaluation.store import draw_sample, mine_recall
from annotator.models import Document, Project


def prepare(session, project: Project, data_dir: Path) -> None:
    """The mode's demo set-up, if it has one."""
    set_up = project_mode(project).hook("demo")
    if set_up is not None:
        set_up(session, project, data_dir)


def prepare_qa_quality(session, project: Project, data_dir: Path) -> None:
    import_predictions(session, project, data_dir / "qa_demo_predictions.json")
    draw_sample(session, project, per_model=4, seed=0)


def prepare_qa_recall(session, project: Project, data_dir: Path) -> None:
    import_predictions(session, project, data_dir / "qa_demo_predictions.json")
    import_references(session, project, data_dir / "qa_recall_demo_gold.jsonl")
    mine_recall(session, project, HashingEmbedder(), threshold=0.2)


def prepare_plainfact(session, project: Project, data_dir: Path) -> None:
    align_documents(session, project, HashingEmbedder())


def align_documents(session, project: Project, embedder) -> int:
    """Store the alignment engine's sentence alignment of documents that have none."""
    done = 0
    for doc in session.scalars(select(Document).where(Document.project_id == project.id,
                                                      Document.alignment.is_(None))):
        _, groups = analyse_pair(doc.source, doc.target, embedder=embedder)
        doc.alignment = sentence_groups(groups, doc.source_sentences, doc.target_sentences)
        done += 1
    session.flush()
    return done
