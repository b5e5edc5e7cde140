"""OpenAI-compatible endpoints through lm-eval's own API clients (its ``api`` extra), subclassed to keep what a
naf-bench run records and registered with lm-eval's model registry as ``naf-bench-<name>``:
``naf-bench run --model local-chat-completions`` runs ``naf-bench-local-chat-completions``.

What the subclasses add to lm-eval's clients:

- no empty ``stop`` list is sent (servers such as ``transformers serve`` answer it with an error; lm-eval sends
  one when the tasks set ``until: []`` and no tokenizer gives an end-of-sequence string);
- the reasoning a server returns apart from the answer (``reasoning_content``, or vLLM's newer ``reasoning``)
  is kept in the response as ``<think>…</think>`` before the answer: the readers of answers skip it, the
  submission keeps it as the trace, and lm-eval's ``--use_cache`` stores it with the answer;
- the completion tokens the server reports for each request, and the generation settings actually sent, are
  returned by ``get_model_info``, which lm-eval writes into the results' ``config``;
- ``dry_run=True`` builds every request exactly as it would be sent and counts them (and their prompt tokens,
  with the ``tokenizer`` given in ``model_args`` or tiktoken's encoding of the model) instead of sending them.

The API key is lm-eval's: ``OPENAI_API_KEY`` from the environment, sent in the request header only.
"""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.request
from functools import cached_property
from urllib.parse import unquote, urlsplit, urlunsplit

from lm_eval.api.registry import register_model
from lm_eval.models.openai_completions import LocalChatCompletion, LocalCompletionsAPI, OpenAIChatCompletion

from naf_bench.errors import ConfigError

CHAT = ("local-chat-completions", "openai-chat-completions")
ENDPOINT_PATHS = {"local-chat-completions": "chat/completions", "openai-chat-completions": "chat/completions",
                  "local-completions": "completions"}  # fmt: skip
LOGPROB_TYPES = ("multiple_choice", "loglikelihood", "loglikelihood_rolling")
SECRET_ARGS = ("auth_token", "header", "api_key")  # model arguments never written to an output file


def registered(backend: str) -> str:
    """The lm-eval model name naf-bench runs for ``--model backend``: its subclass for an endpoint client."""
    return f"naf-bench-{backend}" if backend in ENDPOINT_PATHS else backend


def public_url(url: str) -> str:
    """``url`` without credentials: no user or password, no query string, no fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host  # an IPv6 address, as a URL writes it
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def endpoint_url(backend: str, base_url: str) -> str:
    """lm-eval's ``base_url`` is the full request URL; a ``…/v1`` root is completed with the backend's path."""
    if base_url.rstrip("/").endswith("/v1"):
        return f"{base_url.rstrip('/')}/{ENDPOINT_PATHS[backend]}"
    return base_url


def models_url(base_url: str) -> str:
    """The endpoint's ``/v1/models`` beside its request URL."""
    root, v1, _ = base_url.partition("/v1/")
    return f"{root}/v1/models" if v1 else f"{base_url.rstrip('/')}/models"


def _request(url: str, body: dict | None = None) -> urllib.request.Request:
    """A request to ``url`` as lm-eval's client makes it: the key from ``OPENAI_API_KEY``, or the user and
    password the URL holds (which urllib, unlike lm-eval's HTTP libraries, does not read from the URL)."""
    parts = urlsplit(url)
    key = os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        headers = {"Authorization": "Basic " + base64.b64encode(pair).decode()}
        host = f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname
        url = urlunsplit((parts.scheme, host, parts.path, parts.query, ""))
    if body is not None:
        headers["Content-Type"] = "application/json"
    return urllib.request.Request(url, None if body is None else json.dumps(body).encode(), headers)


def served_models(base_url: str, timeout: float = 15.0) -> list[str]:
    """The model ids ``/v1/models`` lists; a :class:`ConfigError` (one line, no credentials) when it does not
    answer."""
    url = models_url(base_url)
    try:
        with urllib.request.urlopen(_request(url), timeout=timeout) as answer:
            listing = json.load(answer)
    except urllib.error.HTTPError as exc:
        raise ConfigError(
            f"endpoint {public_url(url)} answered HTTP {exc.code} {exc.reason}"
            f"{' (is OPENAI_API_KEY set?)' if exc.code in (401, 403) else ''}"
        ) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConfigError(
            f"endpoint {public_url(url)} does not answer ({reason}): is the server running, and is "
            "base_url its /v1/... URL?"
        ) from None
    return [str(model.get("id")) for model in listing.get("data", []) if isinstance(model, dict)]


def returns_prompt_logprobs(base_url: str, model: str, timeout: float = 60.0) -> bool:
    """Whether ``/v1/completions`` at ``base_url`` returns log-probabilities of the prompt's tokens (``echo`` with
    ``logprobs``), which lm-eval's multiple-choice scoring needs: one request of a two-word prompt."""
    body = {"model": model, "prompt": "Proposition q", "max_tokens": 1, "temperature": 0, "logprobs": 1, "echo": True}
    try:
        with urllib.request.urlopen(_request(base_url, body), timeout=timeout) as answer:
            choice = json.load(answer)["choices"][0]
    except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError, TypeError):
        return False
    logprobs = (choice.get("logprobs") or {}).get("token_logprobs") or []
    return len(logprobs) > 1  # the prompt's tokens as well as the one generated


class Completion(str):
    """A response's text, with the completion tokens the server reported for it (None when it did not)."""

    completion_tokens: int | None = None


def response_text(choice: dict) -> str | None:
    """The text of one choice of a chat or completions response, its separate reasoning (if any) kept before it
    as ``<think>…</think>``."""
    message = choice.get("message")
    if message is None:
        return choice.get("text")
    content = message.get("content")
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if reasoning:
        return f"<think>{reasoning}</think>\n{content or ''}"
    if content is not None and "</think>" in content.lower() and "<think>" not in content.lower():
        return f"<think>{content}"  # the chat template opened the block in the prompt (DeepSeek-R1's)
    return content


class _Recording:
    """What naf-bench adds to an lm-eval API client (placed before it in the class's bases)."""

    def __init__(self, *args, dry_run: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.dry_run = bool(dry_run)
        self.counting_tokenizer = kwargs.get("tokenizer")
        self.sent_settings: list[dict] = []
        self.completion_tokens: dict[str, dict[int, list[int | None]]] = {}  # task -> doc -> per request idx
        self.requests, self.prompt_tokens, self.prompt_characters = 0, 0, 0
        self.reported_prompt_tokens = 0  # the server's usage, summed over the requests sent

    @cached_property
    def eos_string(self) -> str | None:
        """``eos_string`` of ``model_args``, else the tokenizer's when there is one; else None, quietly: no stop
        string is needed, as no empty stop list is sent."""
        return self._eos_string or (super().eos_string if self.tokenizer is not None else None)

    def _create_payload(self, messages, generate=False, gen_kwargs=None, seed=1234, eos=None, **kwargs) -> dict:
        payload = super()._create_payload(
            messages, generate=generate, gen_kwargs=gen_kwargs, seed=seed, eos=eos, **kwargs
        )
        if not payload.get("stop"):
            payload.pop("stop", None)
        if generate:
            settings = {key: value for key, value in payload.items() if key not in ("messages", "prompt", "model")}
            if settings not in self.sent_settings:
                self.sent_settings.append(settings)
        return payload

    def parse_generations(self, outputs, **kwargs) -> list[str | None]:
        texts = []
        for output in outputs if isinstance(outputs, list) else [outputs]:
            choices = sorted(output.get("choices") or [], key=lambda choice: choice.get("index", 0))
            usage = (output.get("usage") or {}).get("completion_tokens")
            self.reported_prompt_tokens += (output.get("usage") or {}).get("prompt_tokens") or 0
            for choice in choices or [{"text": None}]:
                text = response_text(choice)
                if text is not None:
                    text = Completion(text)
                    text.completion_tokens = usage if len(choices) == 1 else None  # a batch's usage is its total
                texts.append(text)
        return texts

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        if self.dry_run:
            return [self._count(request) for request in requests]
        answers = super().generate_until(requests, disable_tqdm)
        for request, answer in zip(requests, answers, strict=True):
            tokens = self.completion_tokens.setdefault(request.task_name, {}).setdefault(request.doc_id, [])
            tokens.extend([None] * (request.idx + 1 - len(tokens)))
            tokens[request.idx] = getattr(answer, "completion_tokens", None)
        return [str(answer) for answer in answers]

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        if self.dry_run:
            for request in requests:
                self._count_text("".join(request.args))
            return [(0.0, False)] * len(requests)
        return super().loglikelihood(requests, disable_tqdm)

    def _count(self, request) -> str:
        context, gen_kwargs = request.args[0], dict(request.args[1])
        payload = self._create_payload(
            self.create_message([context]), generate=True, gen_kwargs=gen_kwargs, seed=self._seed, eos=self.eos_string
        )
        self._count_text(payload.get("messages") or payload.get("prompt"))
        return ""

    def _count_text(self, prompt) -> None:
        self.requests += 1
        if isinstance(prompt, list) and all(isinstance(part, str) for part in prompt):
            prompt = "".join(prompt)
        text = prompt if isinstance(prompt, str) else "".join(m.get("content", "") for m in prompt)
        self.prompt_characters += len(text)
        encode = self._encoder
        if encode is None:
            self.prompt_tokens = None
        elif self.prompt_tokens is not None:
            self.prompt_tokens += encode(prompt)

    @property
    def _encoder(self):
        """Prompt tokens of a request: the chat template's tokens with a Hugging Face ``tokenizer``, else
        tiktoken's encoding of the model (OpenAI's), else None (unknown)."""
        if not hasattr(self, "_encode"):
            self._encode = None
            if self.counting_tokenizer:
                from transformers import AutoTokenizer

                hf = AutoTokenizer.from_pretrained(self.counting_tokenizer)

                def encode(prompt):
                    if isinstance(prompt, str):
                        return len(hf(prompt, add_special_tokens=False).input_ids)
                    ids = hf.apply_chat_template(prompt, add_generation_prompt=True, tokenize=True, return_dict=True)
                    return len(ids["input_ids"])

                self._encode = encode
            else:
                try:
                    import tiktoken

                    encoding = tiktoken.encoding_for_model(self.model)
                except Exception:  # no tiktoken, a model it does not know, or its encoding file not here (offline)
                    return None
                self._encode = lambda prompt: len(
                    encoding.encode(
                        prompt if isinstance(prompt, str) else "".join(m.get("content", "") for m in prompt)
                    )
                )
        return self._encode

    def get_model_info(self) -> dict:
        info = {"base_url": public_url(self.base_url), "model": self.model}
        if self.dry_run:
            return {
                "naf_bench_dry_run": info
                | {
                    "requests": self.requests,
                    "prompt_tokens": self.prompt_tokens,
                    "prompt_characters": self.prompt_characters,
                }
            }
        return {
            "naf_bench_endpoint": info
            | {
                "generation_settings": self.sent_settings,
                "completion_tokens": self.completion_tokens,
                "prompt_tokens": self.reported_prompt_tokens,
            }
        }


@register_model("naf-bench-local-chat-completions")
class LocalChat(_Recording, LocalChatCompletion):
    """lm-eval's ``local-chat-completions`` with naf-bench's recording."""


@register_model("naf-bench-openai-chat-completions")
class OpenAIChat(_Recording, OpenAIChatCompletion):
    """lm-eval's ``openai-chat-completions`` with naf-bench's recording."""


@register_model("naf-bench-local-completions")
class LocalCompletions(_Recording, LocalCompletionsAPI):
    """lm-eval's ``local-completions`` with naf-bench's recording."""
