from cardchat.embeddings.text import embeddable_text, text_hash


def test_links_keep_their_text_and_lose_their_targets():
    out = embeddable_text("T", "See the [LRU cache](https://example.com/lru) and [docs][1].\n\n[1]: https://x.y/z")
    assert "See the LRU cache and docs." in out
    assert "example.com" not in out and "x.y" not in out and "[" not in out


def test_images_html_urls_and_emphasis_are_dropped():
    out = embeddable_text(
        "*Bold* _title_",
        "An ![diagram](img/a.png) <b>strong</b> <!-- note --> **very** ~~old~~ link https://a.b/c?d=1 end",
    )
    assert out.splitlines()[0] == "Bold title"
    body = out.splitlines()[1]
    assert body == "An strong very old link end"


def test_code_is_kept_verbatim_as_words():
    body = "Use `store[key][1:20]` here.\n```python\ndef get(self, key):\n    return __cache__[key]\n```\nafter"
    out = embeddable_text("Code", body)
    assert "store[key][1:20]" in out
    assert "def get(self, key):" in out and "return __cache__[key]" in out
    assert "```" not in out and "python" not in out


def test_markdown_structure_markers_are_dropped():
    body = "# Heading\n\n> quoted line\n- item one\n1. item two\n- [x] done task\n---\n| a | b |\n|---|---|\n| 1 | 2 |"
    out = embeddable_text("T", body).splitlines()[1:]
    assert out == ["Heading", "quoted line", "item one", "item two", "done task", "a b", "1 2"]


def test_dates_are_removed_in_their_common_forms():
    cases = [
        "Met 2024-03-15 about caching",
        "Met 2024-03-15T10:00:00Z about caching",
        "Met 15/03/2024 about caching",
        "Met March 15, 2024 about caching",
        "Met Monday, March 15th, 2024 at 10:30 about caching",
        "Met 15 March 2024 about caching",
        "Met Mar 2024 about caching",
        "Met at 9:05 pm about caching",
    ]
    for case in cases:
        assert embeddable_text("", case) == "Met about caching", case


def test_date_lookalikes_in_prose_and_code_survive():
    out = embeddable_text("", "We may ship version 1.12.10 in 3 steps; slice a[10:20]; ratio 3:2")
    assert out == "We may ship version 1.12.10 in 3 steps; slice a[10:20]; ratio 3:2"


def test_working_note_boilerplate_is_removed():
    body = (
        "Last updated: March 3, 2024\n"
        "Updated on 2024-03-03\n"
        "Created: yesterday\n"
        "*Last edited by Ana*\n"
        "TODO: benchmark the cache\n"
        "FIXME retry on 503\n"
        "Real content stays."
    )
    assert embeddable_text("T", body).splitlines()[1:] == ["benchmark the cache", "retry on 503", "Real content stays."]


def test_front_matter_is_removed():
    assert embeddable_text("T", "---\ndate: 2024-01-01\ntags: [a]\n---\nBody") == "T\nBody"


def test_hash_ignores_noise_but_not_content():
    base = text_hash("Cache design", "We use an LRU cache.")
    assert text_hash("Cache design", "We use an LRU cache.\nLast updated: 2024-05-01") == base
    assert text_hash("Cache  design", "We use an **LRU** cache.") == base
    assert text_hash("Cache design", "We use an LFU cache.") != base
    assert text_hash("Cache design v2", "We use an LRU cache.") != base
    assert len(base) == 64 and int(base, 16) >= 0


def test_unicode_is_normalised_before_hashing():
    assert text_hash("caf\u00e9", "") == text_hash("cafe\u0301", "")
