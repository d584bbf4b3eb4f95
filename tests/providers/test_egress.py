"""The base-URL guard (providers/egress.py), address class by address class.

DNS is the outside world here: each test answers the lookup itself, and the
pinned client talks to an httpx2 MockTransport that records where it was sent.
"""

from __future__ import annotations

import httpx2
import pytest

from cardchat.providers import egress
from cardchat.providers.egress import Refused, check

PUBLIC_V4 = "93.184.215.14"
PUBLIC_V6 = "2606:4700:4700::1111"


def answers(*addresses: str):
    calls: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        return list(addresses)

    resolve.calls = calls  # type: ignore[attr-defined]
    return resolve


@pytest.mark.parametrize(
    ("kind", "address"),
    [
        ("loopback v4", "127.0.0.1"),
        ("loopback v4, not .1", "127.8.9.10"),
        ("loopback v6", "::1"),
        ("private 10/8", "10.1.2.3"),
        ("private 172.16/12", "172.20.0.5"),
        ("private 192.168/16", "192.168.1.1"),
        ("link-local v4", "169.254.10.10"),
        ("metadata server", "169.254.169.254"),
        ("carrier-grade NAT", "100.64.0.1"),
        ("carrier-grade NAT, top", "100.127.255.254"),
        ("this network", "0.0.0.0"),
        ("multicast", "224.0.0.251"),
        ("reserved", "240.0.0.1"),
        ("unique-local v6", "fd12:3456::1"),
        ("unique-local v6, fc half", "fc00::5"),
        ("link-local v6", "fe80::1"),
        ("v4-mapped loopback", "::ffff:127.0.0.1"),
        ("v4-mapped private", "::ffff:10.0.0.1"),
        ("v4-mapped metadata", "::ffff:169.254.169.254"),
        ("v4-compatible loopback", "::127.0.0.1"),
        ("NAT64 of a private address", "64:ff9b::a00:1"),
        ("6to4 of a private address", "2002:c0a8:101::1"),
        ("unspecified v6", "::"),
    ],
)
def test_refuses_every_non_public_address_class(kind, address):
    with pytest.raises(Refused, match="not public"):
        check("https://models.example.com/v1", resolve=answers(address))


@pytest.mark.parametrize("address", [PUBLIC_V4, PUBLIC_V6, "::ffff:93.184.215.14"])
def test_accepts_a_public_address(address):
    checked = check("https://models.example.com/v1/", resolve=answers(address))
    assert checked.url == "https://models.example.com/v1"
    assert checked.address == address


def test_one_private_answer_among_public_ones_refuses():
    with pytest.raises(Refused, match="not public"):
        check("https://models.example.com/v1", resolve=answers(PUBLIC_V4, "10.0.0.7"))


def test_refuses_http_outside_the_emulators():
    with pytest.raises(Refused, match="https"):
        check("http://models.example.com/v1", local_ok=False, resolve=answers(PUBLIC_V4))


@pytest.mark.parametrize("host", ["metadata.google.internal", "METADATA.GOOGLE.INTERNAL", "metadata"])
def test_refuses_the_metadata_host_by_name(host):
    with pytest.raises(Refused, match="does not call"):
        check(f"https://{host}/computeMetadata/v1", resolve=answers(PUBLIC_V4))


@pytest.mark.parametrize(
    "url",
    [
        "https://user:pw@models.example.com/v1",
        "https://models.example.com/v1?x=1",
        "https://models.example.com/v1#f",
        "ftp://models.example.com/v1",
        "file:///etc/passwd",
        "https:///v1",
        "",
        None,
        "https://models.example.com:99999/v1",
        "https://" + "a" * 600 + ".com",
    ],
)
def test_refuses_malformed_urls(url):
    with pytest.raises(Refused):
        check(url, resolve=answers(PUBLIC_V4))


def test_a_host_that_does_not_resolve_is_refused():
    with pytest.raises(Refused, match="resolve"):
        check("https://models.example.com/v1", resolve=answers())


@pytest.mark.parametrize("url", ["http://127.0.0.1:11434/v1", "http://localhost:8080/v1"])
def test_local_http_only_under_the_emulators(url):
    assert check(url, local_ok=True, resolve=answers("127.0.0.1")).scheme == "http"
    with pytest.raises(Refused):
        check(url, local_ok=False, resolve=answers("127.0.0.1"))


def test_the_emulator_allowance_is_loopback_by_those_names_only():
    with pytest.raises(Refused):  # another name for a private address stays refused
        check("http://10.0.0.5:8080/v1", local_ok=True, resolve=answers("10.0.0.5"))
    with pytest.raises(Refused):  # localhost that resolves elsewhere is not local
        check("http://localhost:8080/v1", local_ok=True, resolve=answers("10.0.0.5"))


def test_the_emulator_allowance_follows_functions_emulator(monkeypatch):
    monkeypatch.setenv("FUNCTIONS_EMULATOR", "true")
    assert check("http://127.0.0.1:9/v1", resolve=answers("127.0.0.1")).port == 9
    monkeypatch.delenv("FUNCTIONS_EMULATOR")
    with pytest.raises(Refused):
        check("http://127.0.0.1:9/v1", resolve=answers("127.0.0.1"))


def test_the_client_connects_to_the_checked_address_without_a_second_lookup():
    """DNS rebinding: the lookup answers a public address once, then a private one;
    the call still goes to the address that was checked, under the URL's name."""
    resolve = answers(PUBLIC_V4)
    checked = check("https://models.example.com/v1", resolve=resolve)
    resolve.calls.clear()
    sent: list[httpx2.Request] = []
    client = egress.pinned_client(checked, inner=httpx2.MockTransport(lambda r: sent.append(r) or httpx2.Response(200)))
    client.get("https://models.example.com/v1/models")
    assert resolve.calls == []
    assert sent[0].url.host == PUBLIC_V4
    assert sent[0].headers["host"] == "models.example.com"
    assert sent[0].extensions["sni_hostname"] == "models.example.com"


def test_the_client_follows_no_redirect_and_refuses_other_hosts():
    checked = check("https://models.example.com/v1", resolve=answers(PUBLIC_V4))
    sent: list[httpx2.Request] = []

    def redirect(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return httpx2.Response(302, headers={"location": "http://169.254.169.254/computeMetadata/v1"})

    client = egress.pinned_client(checked, inner=httpx2.MockTransport(redirect))
    assert client.get("https://models.example.com/v1/models").status_code == 302
    assert len(sent) == 1
    with pytest.raises(httpx2.ConnectError):
        client.get("https://169.254.169.254/computeMetadata/v1")
    assert len(sent) == 1
