"""A team's run as a guest of the worker's machine: what its child process inherits, and where it may connect.

- :func:`child_env`: the run's environment, built from an allow-list (``PATH``, locale, cache folders, ...), never
  copied from the worker's: no credential of the worker's (``OPENAI_API_KEY``, ``HF_TOKEN``, anything else) reaches
  a team's model or server. ``OPENAI_API_KEY`` is always the team's key, or empty where the team gave none, and
  the Hugging Face libraries are offline (an approved model is a local copy: nothing of it may fetch more).
- :func:`host_problem`: whether an endpoint's host is one the board may reach: a host that is, or resolves to, a
  loopback, private (IPv6: unique-local), link-local, multicast, unspecified or reserved address, IPv4-mapped or
  not, is refused unless the maintainer allows it by name (``--allow-endpoint-host HOST``); a numeric host written
  other than as a dotted quad (``0x7f000001``, ``2130706433``, ``017700000001``) is refused always.
- ``python -m naf_bench.leaderboard.guest run ...``: ``naf-bench run`` under a guard installed first in its own
  process: every name it resolves is checked again at connection (:func:`guard`; DNS may have changed since the
  job was queued) and no HTTP redirect is followed (urllib's and requests', the clients a run connects with).
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket

ALLOWED_HOSTS_ENV = "NAF_BENCH_ALLOWED_HOSTS"  # JSON list of the hosts the maintainer allows, for the guard

# what a run needs of the worker's environment; nothing else of it is passed on
CHILD_ENV = (
    "PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV",
    "HF_HOME", "HF_HUB_CACHE", "HF_DATASETS_CACHE", "HF_ASSETS_CACHE", "XDG_CACHE_HOME", "TORCH_HOME",
    "TOKENIZERS_PARALLELISM", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUDA_VISIBLE_DEVICES",
)  # fmt: skip
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
}


def child_env(key: str | None, allowed_hosts=(), **extra: str) -> dict[str, str]:
    """The environment of a team's run: :data:`CHILD_ENV` of the worker's, the Hugging Face libraries offline, the
    team's ``key`` as ``OPENAI_API_KEY`` (empty: none given), the hosts the guard lets through, and ``extra``."""
    env = {name: os.environ[name] for name in CHILD_ENV if name in os.environ}
    env.update(OFFLINE, OPENAI_API_KEY=key or "", **{ALLOWED_HOSTS_ENV: json.dumps(sorted(allowed_hosts))}, **extra)
    return env


def address_problem(address: str) -> str | None:
    """What makes ``address`` (an IP address as text) one the board never reaches by default; None when global."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for kind in ("loopback", "unspecified", "link_local", "multicast", "private", "reserved"):
        if getattr(ip, f"is_{kind}"):
            return ("unique-local" if kind == "private" and ip.version == 6 else kind).replace("_", "-")
    return None if ip.is_global else "non-global"


def normal_host(host: str) -> str:
    return host.strip("[]").lower().rstrip(".")


def host_problem(host: str, allowed=()) -> str | None:
    """Why an endpoint's ``host`` (a URL's host name) may not be reached, in a few words; None when it may."""
    host = normal_host(host)
    if host in {normal_host(name) for name in allowed}:
        return None
    literal = True
    try:
        addresses = [str(ipaddress.ip_address(host.split("%", 1)[0]))]
    except ValueError:
        literal = False
        try:
            socket.inet_aton(host)
        except OSError:
            pass
        else:
            return f"{host} is an IPv4 address written other than as a dotted quad"
        try:
            addresses = sorted({info[4][0] for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)})
        except (OSError, UnicodeError):
            return f"{host} does not resolve"
    for address in addresses:
        if kind := address_problem(address):
            article = "an" if kind[0] in "aeiou" else "a"
            return f"{host} {'is' if literal else 'resolves to'} {article} {kind} address"
    return None


def guard(allowed=()) -> None:
    """In this process from now on: every name resolved is checked as :func:`host_problem` checks it (a name not
    allowed that resolves to an address not global is refused with ``OSError``), and HTTP redirects are not
    followed."""
    allowed = {normal_host(name) for name in allowed}
    resolve = socket.getaddrinfo

    def checked(host, *args, **kwargs):
        infos = resolve(host, *args, **kwargs)
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and normal_host(name) not in allowed:
            for info in infos:
                if kind := address_problem(info[4][0]):
                    raise OSError(f"naf-bench: {name} is not a host this run may reach ({kind} address)")
        return infos

    socket.getaddrinfo = checked
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None  # the 3xx answer is the answer

    urllib.request.install_opener(urllib.request.build_opener(NoRedirect))
    try:
        import requests
    except ImportError:
        return
    requests.Session.get_redirect_target = lambda self, response: None


if __name__ == "__main__":
    import runpy

    guard(json.loads(os.environ.get(ALLOWED_HOSTS_ENV, "[]")))
    runpy.run_module("naf_bench.cli", run_name="__main__", alter_sys=True)
