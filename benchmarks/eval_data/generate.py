"""Generate the planted evaluation set for the pre-highlighters (fixed seed).

Each document is a structured abstract built from sentence templates and a faithful
plain-language rendering of it in which every specific item (numbers, dosages,
durations, statistics, design terms, instruments) is preserved. Problems are then
planted and recorded with their kind and character spans:

* ``trailing`` + ``leaked_instruction``: model boilerplate appended to a sentence;
* ``trailing`` + ``semantic_outlier``: an ungrounded sentence appended at the end;
* ``deletion``: a specific item dropped from its sentence with nothing in its place, or a
  whole sentence dropped;
* ``oversimplification``: a specific item replaced by a generic phrase, or cut out where the
  sentence keeps a generic word for it ("This study" for "In this randomized crossover
  trial"). The InfoLossQA experts' convention (issue #29): an item cut out and replaced by a
  generic phrase is a fuzzy concept. Until then the design slot, whose generic phrase is
  empty, was labelled a deletion;
* ``trailing`` + ``repetition``: a sentence repeated at the end.

    .venv/bin/python benchmarks/eval_data/generate.py   # writes planted.jsonl beside it
"""

from __future__ import annotations

import json
import random
from pathlib import Path

# (source template, target template); slots in braces are filled with the same value on
# both sides; "generic" gives the vague phrase used for an oversimplification.
TEMPLATES = [
    ("BACKGROUND: {condition} is a common cause of {problem} in {population}.",
     "{condition} often causes {problem} in {population}."),
    ("METHODS: In this {design} trial, {n} {population} were enrolled at {sites} hospitals.",
     "This {design} study included {n} {population} from {sites} hospitals."),
    ("Participants received {drug} {dose} or placebo for {duration}.",
     "People took {drug} {dose} or a dummy pill for {duration}."),
    ("The primary outcome was change in {outcome} measured with the {instrument}.",
     "The main thing checked was change in {outcome}, using the {instrument}."),
    ("RESULTS: {outcome_cap} improved more with {drug} than with placebo {stat}.",
     "{outcome_cap} got better with {drug} than with the dummy pill {stat}."),
    ("Adverse events occurred in {pct} of patients in the {drug} group.",
     "Side effects happened in {pct} of people taking {drug}."),
    ("CONCLUSIONS: {drug} may be a useful option for {population} with {condition}.",
     "{drug} may help {population} with {condition}."),
]
VALUES = {
    "condition": [
        "Asthma",
        "Migraine",
        "Type 2 diabetes",
        "Crohn's disease",
        "Chronic kidney disease",
    ],
    "problem": ["hospital admission", "missed school days", "long-term disability", "poor sleep"],
    "population": ["children", "adults", "older adults", "pregnant women", "adolescents"],
    "design": [
        "prospective double-blind, randomized",
        "multicentre placebo-controlled",
        "randomized crossover",
        "open-label randomized",
    ],
    "n": ["120", "42", "356", "1,024", "87"],
    "sites": ["12", "4", "27", "3"],
    "drug": ["montelukast", "vitamin D", "metformin", "budesonide", "erenumab"],
    "dose": [
        "2.5 mg/kg twice daily",
        "2000 IU daily",
        "500 mg twice daily",
        "70 mg monthly",
        "9 mg once daily",
    ],
    "duration": ["12 weeks", "6 months", "24 weeks", "18 months", "8 weeks"],
    "outcome": [
        "lung function",
        "headache days",
        "blood sugar",
        "symptom scores",
        "kidney function",
    ],
    "instrument": [
        "Asthma Control Questionnaire (ACQ)",
        "Migraine Disability Assessment (MIDAS)",
        "Short IBD Questionnaire (SIBDQ)",
        "Pittsburgh Sleep Quality Index (PSQI)",
    ],
    "stat": [
        "(p = 0.003)",
        "(OR 1.8, 95% CI 1.2-2.7)",
        "(mean difference 4.2 ± 1.1; p < 0.001)",
        "(HR 0.71, 95% CI 0.55-0.92)",
    ],
    "pct": ["12%", "7.5%", "23%", "3 of 42"],
}
GENERIC = {"dose": "a daily dose", "duration": "some time", "stat": "in the study",
           "design": "", "instrument": "a survey", "n": "some", "pct": "some"}
# Where the target keeps a generic word for a slot whose generic phrase is empty: the
# rendering an expert would link the oversimplification to.
KEPT_GENERIC = {"design": "This study"}
LOSS_SLOTS = ["dose", "duration", "stat", "design", "instrument", "n", "pct"]
LEAKS = ["(I chose 'rephrase' as the internal simplification strategy)",
         "Note: I simplified the medical terms in this sentence.",
         "Here is the simplified version of the text above.",
         "As an AI language model, I have rephrased this for a general audience.",
         "I hope this helps make the study easier to understand!",
         "(I used the 'explain' strategy here.)"]
INJECTIONS = [
    "These comparisons were made whether or not the patients were also taking other medicines.",
    "Researchers in Japan are now planning a much larger study with thousands of families.",
    "Many doctors already recommend regular exercise and a healthy diet to everyone.",
    "The company that makes the medicine paid for the whole study and wrote the report.",
]


def fill(template: str, values: dict) -> tuple[str, dict[str, tuple[int, int]]]:
    """Fill slots left to right and remember where each slot's value landed."""
    out, where, pos = "", {}, 0
    while True:
        start = template.find("{", pos)
        if start < 0:
            return out + template[pos:], where
        end = template.index("}", start)
        out += template[pos:start]
        name = template[start + 1:end]
        value = values[name]
        where[name] = (len(out), len(out) + len(value))
        out += value
        pos = end + 1


def make_document(rng: random.Random, doc_id: int) -> dict:
    values = {k: rng.choice(v) for k, v in VALUES.items()}
    values["outcome_cap"] = values["outcome"][0].upper() + values["outcome"][1:]
    plan = rng.choice(["clean", "clean", "leak", "inject", "delete_item", "delete_item",
                       "oversimplify", "oversimplify", "delete_sentence", "repeat"])
    source_parts, target_parts, problems = [], [], []
    src_off = tgt_off = 0
    loss_sentence = rng.randrange(len(TEMPLATES))
    for k, (s_tpl, t_tpl) in enumerate(TEMPLATES):
        s_text, s_where = fill(s_tpl, values)
        t_values = dict(values)
        slot = next((x for x in LOSS_SLOTS if x in s_where and x in t_tpl), None)
        if plan in ("delete_item", "oversimplify") and k == loss_sentence and slot is None:
            loss_sentence += 1  # this sentence has no specific item; try the next one
        if plan in ("delete_item", "oversimplify") and k == loss_sentence and slot:
            t_values[slot] = "" if plan == "delete_item" else GENERIC[slot]
            kind = ("oversimplification" if plan == "oversimplify" or slot in KEPT_GENERIC
                    else "deletion")
            t_text, t_where = fill(t_tpl, t_values)
            t_text = " ".join(t_text.split()).replace(" ,", ",").replace(" .", ".")
            s0, s1 = s_where[slot]
            problem = {"kind": kind, "source_spans": [[src_off + s0, src_off + s1]],
                       "target_spans": [], "slot": slot}
            if kind == "oversimplification":
                phrase = GENERIC[slot] or KEPT_GENERIC[slot]
                g = t_text.find(phrase)
                problem["target_spans"] = [[tgt_off + g, tgt_off + g + len(phrase)]]
            problems.append(problem)
        elif plan == "delete_sentence" and k == loss_sentence and k > 0:
            problems.append({"kind": "deletion", "source_spans": [[src_off, src_off + len(s_text)]],
                             "target_spans": [], "slot": "sentence"})
            t_text = None
        else:
            t_text, _ = fill(t_tpl, t_values)
        if plan == "leak" and k == loss_sentence and t_text:
            leak = rng.choice(LEAKS)
            start = tgt_off + len(t_text) + 1
            t_text = t_text + " " + leak
            for kind in ("trailing", "leaked_instruction"):
                problems.append(
                    {
                        "kind": kind,
                        "source_spans": [],
                        "target_spans": [[start, start + len(leak)]],
                        "slot": "leak",
                    }
                )
        source_parts.append(s_text)
        src_off += len(s_text) + 1
        if t_text:
            target_parts.append(t_text)
            tgt_off += len(t_text) + 1
    if plan == "inject":
        text = rng.choice(INJECTIONS)
        for kind in ("trailing", "semantic_outlier"):
            problems.append(
                {
                    "kind": kind,
                    "source_spans": [],
                    "target_spans": [[tgt_off, tgt_off + len(text)]],
                    "slot": "injection",
                }
            )
        target_parts.append(text)
    if plan == "repeat":
        text = target_parts[rng.randrange(1, len(target_parts))]
        # Appended at the end, a repetition is also trailing content (SimpleOG's
        # "repetitive content" category).
        for kind in ("trailing", "repetition"):
            problems.append({"kind": kind, "source_spans": [],
                             "target_spans": [[tgt_off, tgt_off + len(text)]], "slot": "repeat"})
        target_parts.append(text)
    return {"id": f"doc{doc_id:03d}", "plan": plan, "source": " ".join(source_parts),
            "target": " ".join(target_parts), "problems": problems}


def main() -> None:
    rng = random.Random(20240611)
    docs = [make_document(rng, i) for i in range(200)]
    for doc in docs:  # the recorded spans must point at the planted text
        for p in doc["problems"]:
            for s, e in p["target_spans"]:
                assert 0 <= s < e <= len(doc["target"]), (doc["id"], p)
            for s, e in p["source_spans"]:
                assert 0 <= s < e <= len(doc["source"]), (doc["id"], p)
    path = Path(__file__).with_name("planted.jsonl")
    with path.open("w", encoding="utf-8") as handle:
        for doc in docs:
            handle.write(json.dumps(doc, ensure_ascii=False) + "\n")
    print(f"wrote {len(docs)} documents to {path}")


if __name__ == "__main__":
    main()
