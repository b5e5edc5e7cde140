"""naf_bench.runs.run, before any model loads: --out and --limit checked, model arguments and endpoint arguments
made, model paths that do not exist refused with what was meant, and the tokenizer's chat template found."""

import pytest

from naf_bench.errors import ConfigError
from naf_bench.runs.run import (
    check_limit,
    check_out,
    checked_task_manager,
    endpoint_arguments,
    has_chat_template,
    model_arguments,
    public_model_args,
)


def test_out_is_a_new_or_empty_folder_and_not_made_by_the_check(tmp_path):
    assert check_out(tmp_path / "run" / "one") == tmp_path / "run" / "one"
    assert not (tmp_path / "run").exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match=r"--out .*file: a file, where the run's output folder goes"):
        check_out(tmp_path / "file")
    with pytest.raises(ConfigError, match=r"--out .*file/run: .*file is a file, where a folder was expected"):
        check_out(tmp_path / "file" / "run")
    (tmp_path / "submission.jsonl").write_text("")
    with pytest.raises(ConfigError, match=r"holds an earlier run's submission.jsonl; .* pass --overwrite"):
        check_out(tmp_path)
    assert check_out(tmp_path, overwrite=True) == tmp_path


def test_limit_is_a_positive_count_or_a_fraction():
    assert (check_limit(None), check_limit(0.25), check_limit(20.0)) == (None, 0.25, 20)
    assert type(check_limit(20.0)) is int
    for bad in (0, -3, 2.5, float("nan"), float("inf")):  # nan and inf: what --limit's float() also takes
        with pytest.raises(ConfigError, match=f"--limit {bad:g}: give a positive count of documents per task"):
            check_limit(bad)


def test_model_arguments_for_a_hub_name_a_gguf_file_and_extra_arguments(tmp_path):
    assert model_arguments("org/tiny", "dtype=float32, revision = main") == {
        "pretrained": "org/tiny",
        "dtype": "float32",
        "revision": "main",
    }
    assert model_arguments(str(tmp_path / "m.Q4.gguf")) == {"pretrained": str(tmp_path), "gguf_file": "m.Q4.gguf"}
    with pytest.raises(ConfigError, match="--model_args 'dtype': expected KEY=VALUE,KEY=VALUE"):
        model_arguments("org/tiny", "dtype")
    with pytest.raises(ConfigError, match="name a model, or give --model_args pretrained="):
        model_arguments(None)


def test_endpoint_arguments_complete_the_url_and_results_never_show_secrets():
    assert endpoint_arguments("local-chat-completions", "m", "base_url=http://h:8000/v1,num_concurrent=2") == {
        "base_url": "http://h:8000/v1/chat/completions",
        "num_concurrent": "2",
        "model": "m",
    }
    with pytest.raises(ConfigError, match="--model local-completions needs the server's URL"):
        endpoint_arguments("local-completions", "m", None)
    shown = {"base_url": "http://user:pw@h:8000/v1/chat/completions?key=1", "model": "m", "api_key": "sk-1"}
    assert public_model_args(shown) == "base_url=http://h:8000/v1/chat/completions,model=m"


def test_a_model_path_that_does_not_exist_is_refused_before_any_model_loads(tmp_path):
    (tmp_path / "tiny-model").mkdir()
    with pytest.raises(ConfigError, match=f"no such file or folder; did you mean {tmp_path}/tiny-model\\?"):
        checked_task_manager({"pretrained": str(tmp_path / "tiny-modle")}, ("naf_bench",), {})
    with pytest.raises(ConfigError, match=r"no such file or folder \(and not a Hub name ORG/NAME\)"):
        checked_task_manager({"pretrained": str(tmp_path / "none" / "a" / "b")}, ("naf_bench",), {})
    with pytest.raises(ConfigError, match=r"tiny-model/x.gguf': no such \.gguf file"):
        checked_task_manager({"pretrained": str(tmp_path / "tiny-model"), "gguf_file": "x.gguf"}, ("naf_bench",), {})


@pytest.fixture(scope="module")
def tokenizers_folder(tmp_path_factory):
    """Two word-level tokenizers saved as folders: ``chat`` with a chat template, ``plain`` without one."""
    import transformers
    from tokenizers import Tokenizer, models

    folder = tmp_path_factory.mktemp("tokenizers")
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer(models.WordLevel({"[UNK]": 0, "A": 1}, unk_token="[UNK]")), unk_token="[UNK]"
    )
    tokenizer.save_pretrained(folder / "plain")
    tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    tokenizer.save_pretrained(folder / "chat")
    return folder


def test_the_chat_template_is_read_from_the_tokenizer(tokenizers_folder):
    assert has_chat_template({"pretrained": str(tokenizers_folder / "chat")})
    assert not has_chat_template({"pretrained": "elsewhere", "tokenizer": str(tokenizers_folder / "plain")})
    with pytest.raises(ConfigError, match="no tokenizer to read a chat template from"):
        has_chat_template({"base_url": "http://h:8000/v1"})
