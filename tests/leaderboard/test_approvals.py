"""naf_bench.leaderboard.approvals: an approved model is a checked copy named by its contents; symbolic links,
pickled weights and files that are not what their names say are refused with nothing kept."""

import hashlib
import json
import os

import pytest

from naf_bench.errors import ConfigError
from naf_bench.leaderboard.approvals import approve, content_problem

SAFETENSORS = (2).to_bytes(8, "little") + b"{}"  # an empty header: the smallest safetensors file


def model_folder(root):
    folder = root / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    (folder / "model.safetensors").write_bytes(SAFETENSORS)
    return folder


def test_an_approved_folder_is_copied_under_the_hash_of_its_names_and_contents(tmp_path):
    folder = model_folder(tmp_path)
    name, copy = approve(str(folder), tmp_path / "models")
    digest = hashlib.sha256()
    for file in ("config.json", "model.safetensors"):
        digest.update(f"{file}\0{hashlib.sha256((folder / file).read_bytes()).hexdigest()}\0".encode())
    assert (name, copy) == (str(folder.resolve()), tmp_path / "models" / digest.hexdigest()[:32])
    assert sorted(p.name for p in copy.iterdir()) == ["config.json", "model.safetensors"]
    assert (copy / "model.safetensors").read_bytes() == SAFETENSORS
    assert approve(str(folder), tmp_path / "models")[1] == copy  # the same files: the same copy, not a second
    assert [p.name for p in (tmp_path / "models").iterdir()] == [copy.name]


def test_pickled_weights_are_refused_and_nothing_is_kept(tmp_path):
    folder = model_folder(tmp_path)
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04weights")
    with pytest.raises(ConfigError, match=r"pytorch_model\.bin: pickled weights"):
        approve(str(folder), tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []


def test_a_symbolic_link_is_refused_inside_a_folder_and_as_the_model_itself(tmp_path):
    folder = model_folder(tmp_path)
    (tmp_path / "gold.jsonl").write_text("secret")
    os.symlink(tmp_path / "gold.jsonl", folder / "chat_template.jinja")
    with pytest.raises(ConfigError, match=r"chat_template\.jinja: a symbolic link; a model's files are copied"):
        approve(str(folder), tmp_path / "models")
    os.symlink(folder, tmp_path / "linked")
    with pytest.raises(ConfigError, match="linked: a symbolic link; approve the folder or file it points to"):
        approve(str(tmp_path / "linked"), tmp_path / "models")


def test_a_hub_id_must_be_pinned_to_a_full_commit(tmp_path):
    with pytest.raises(ConfigError, match="not a Hub id pinned to a commit"):
        approve("org/name@main", tmp_path / "models")
    with pytest.raises(ConfigError, match="neither a model folder"):
        approve(str(tmp_path), tmp_path / "models")  # a folder without config.json


def test_content_problem_says_why_a_file_is_not_what_its_name_says():
    assert content_problem("model.gguf", b"GGUF\x03\x00", 100) is None
    assert content_problem("model.gguf", b"PK\x03\x04", 100) == "named .gguf but not a GGUF file (no GGUF magic)"
    assert content_problem("model.safetensors", SAFETENSORS, len(SAFETENSORS)) is None
    assert content_problem("model.safetensors", SAFETENSORS, 9) == "named .safetensors but without a safetensors header"
    assert content_problem("config.json", b"{", 1) == "named .json but not JSON"
    assert content_problem("weights.data", b"\x80\x02rest", 6).startswith("pickled weights")
    assert content_problem("tokenizer.model", b"\x80\x01", 2) is None  # not a pickle protocol's opening
