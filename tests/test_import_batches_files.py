"""Which files one annotation import reads (``annotator/interop/batches.py``): folders in
name order, the annotator from the file name, refusals naming the file."""

from pathlib import Path

import pytest

from annotator.interop.batches import annotation_files, filename_pattern


def touch(folder: Path, *names: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text("[]", encoding="utf-8")


def test_a_folder_is_its_files_of_the_format_in_name_order(tmp_path):
    touch(tmp_path / "b", "batch2-ana.json", "batch1-ben.json", "batch1-ana.json", "notes.txt")
    files, problems = annotation_files([tmp_path / "b"], "labelstudio-min",
                                       pattern="batch*-{annotator}.json")
    assert problems == []
    assert [(f.name, who) for f, who in files] == [
        ("batch1-ana.json", "ana"), ("batch1-ben.json", "ben"), ("batch2-ana.json", "ana")]


def test_files_keep_the_order_given_and_the_annotator_option(tmp_path):
    touch(tmp_path, "z.jsonl", "a.jsonl")
    files, problems = annotation_files([tmp_path / "z.jsonl", tmp_path / "a.jsonl"],
                                       "annotations-jsonl", annotator="ana")
    assert problems == [] and [(f.name, who) for f, who in files] == [
        ("z.jsonl", "ana"), ("a.jsonl", "ana")]


def test_a_pattern_with_a_folder_matches_folder_and_file(tmp_path):
    touch(tmp_path / "annotations-karim", "1774569-annotations.json")
    touch(tmp_path / "annotations-kathryn", "1774569-annotations.json")
    files, problems = annotation_files(
        sorted(tmp_path.iterdir()), "thresh", pattern="annotations-{annotator}/*.json")
    assert problems == [] and [who for _, who in files] == ["karim", "kathryn"]


def test_units_and_the_thresh_folder_rule_stay_whole(tmp_path):
    touch(tmp_path / "release", "documents.json", "questions.json")
    touch(tmp_path / "thresh", "ana.json", "ben.json")
    assert annotation_files([tmp_path / "release"], "infolossqa")[0] == [
        (tmp_path / "release", None)]
    assert annotation_files([tmp_path / "thresh"], "thresh")[0] == [(tmp_path / "thresh", None)]


def test_refusals_name_the_file_and_the_value(tmp_path):
    touch(tmp_path / "b", "batch1-ana.json", "readme.json")
    touch(tmp_path / "empty")
    _, problems = annotation_files([tmp_path / "b", tmp_path / "empty"], "labelstudio",
                                   pattern="batch*-{annotator}.json")
    assert [str(p) for p in problems] == [
        f"{tmp_path / 'empty'}: the folder holds no .json files for --format labelstudio",
        f"{tmp_path / 'b' / 'readme.json'}: the file name does not match "
        "--annotator-from-filename 'batch*-{annotator}.json' (got 'readme.json')"]
    with pytest.raises(ValueError, match="must hold {annotator} once"):
        filename_pattern("batch*.json")
    assert filename_pattern("a?-{annotator}.json").fullmatch("a1-kim.json")["annotator"] == "kim"
    assert filename_pattern("a?-{annotator}.json").fullmatch("a12-kim.json") is None
