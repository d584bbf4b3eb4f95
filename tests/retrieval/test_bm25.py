"""BM25 tokenising, exact terms, compounds, and Reciprocal Rank Fusion math."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardchat.retrieval import bm25 as sparse
from cardchat.retrieval import fusion
from cardchat.retrieval.bm25 import Bm25, tokenize


def test_code_tokens_kept_whole_and_split():
    toks = tokenize("Run git rebase --onto main HEAD~3; see NullPointerException in core.autocrlf")
    for t in [
        "--onto",
        "onto",
        "head~3",
        "head",
        "3",
        "nullpointerexception",
        "null",
        "pointer",
        "exception",
        "core.autocrlf",
        "core",
        "autocrlf",
        "git",
        "rebase",
        "main",
    ]:
        assert t in toks
    assert "in" not in toks and "see" in toks  # light stopwording only
    assert tokenize("git-rebase ORIG_HEAD") == ["git-rebase", "git", "rebase", "orig_head", "orig", "head"]
    assert tokenize("Pensioenregeling Krankenversicherung über") == ["pensioenregeling", "krankenversicherung", "uber"]


def _scores(texts, query, compound_weight=0.4, title_weight=2.0):
    bm = Bm25(title_weight=title_weight)
    index = bm.index([str(i) for i in range(len(texts))], ["h"] * len(texts), texts)
    return bm.scores(query, index, compound_weight)


FILLER = [f"Note {i}\nordinary words about branches and commits number {i}" for i in range(20)]


def test_exact_option_outranks_partial_word():
    texts = FILLER + [
        "git rebase\nuse --onto to transplant a branch",
        "A story\nwe went onto the roof",
    ]
    s = _scores(texts, "--onto")
    assert s[20] > s[21] > 0  # exact token and its part vs the part only
    assert np.count_nonzero(s) == 2


def test_title_terms_weigh_more():
    texts = FILLER + ["reflog\nsomething else entirely", "something else\nentirely about the reflog"]
    s = _scores(texts, "reflog")
    assert s[20] > s[21] > 0
    s_flat = _scores(texts, "reflog", title_weight=1.0)
    assert s_flat[20] == pytest.approx(s_flat[21], rel=0.2)


def test_rare_terms_weigh_more_than_common():
    texts = FILLER + ["x\nbranches stash", "y\nbranches commits"]
    s = _scores(texts, "branches stash")
    assert s[20] > s[21]


def test_compound_fallback_matches_glued_words_at_reduced_weight():
    texts = FILLER + [
        "Partnerpensioen\nuitkering na overlijden van de deelnemer",
        "Pensioen\nhet pensioen van de deelnemer",
        "Krankenversicherung\nBeitragssatz und Zusatzbeitrag",
    ]
    on = _scores(texts, "pensioen")
    off = _scores(texts, "pensioen", compound_weight=0.0)
    assert off[20] == 0 and on[20] > 0  # only through the compound
    assert on[21] > on[20]  # the exact word still wins
    assert on[21] == off[21]
    assert _scores(texts, "Versicherung")[22] > 0
    assert _scores(texts, "Versicherung", compound_weight=0.0)[22] == 0
    # short terms never use the fallback: "dee" must not reach "deelnemer"
    assert _scores(texts, "pens")[20] == 0


def test_shared_stem_counts_as_compound():
    texts = FILLER + ["a\nchanges are committing now", "b\nnothing relevant here", "c\nrebasing"]
    s = _scores(texts, "committed")  # shares the 7-char stem "committ"
    assert s[20] > 0 and s[21] == 0
    assert _scores(texts, "rebased")[22] == 0  # "rebas" is only 5 chars


def test_cache_reuses_doc_terms_and_keys_by_hash():
    bm = Bm25()
    first = bm.doc_terms(("c1", "h1"), "title\nbody words")
    assert bm.doc_terms(("c1", "h1"), "ignored: same key") is first
    assert bm.doc_terms(("c1", "h2"), "title\nnew body") is not first


def test_a_document_not_remembered_is_the_same_but_not_cached():
    """What an index entry is made of: the entry keeps the terms, BM25's cache does not."""
    bm = Bm25()
    once = bm.doc_terms(("c1", "h1"), "title\nbody words", remember=False)
    kept = bm.doc_terms(("c1", "h1"), "title\nbody words")
    assert kept is not once and bm.doc_terms(("c1", "h1"), "ignored: cached now") is kept
    assert np.array_equal(kept.term_ids, once.term_ids) and np.array_equal(kept.tf, once.tf)
    assert kept.length == once.length


def test_rrf_math():
    # item 0: rank 1 and rank 3; item 1: rank 2 only; item 2: rank 1 in the second list
    scores = fusion.rrf_scores([[0, 1], [2, 3, 0]], [1.0, 0.5], n=5, k=60)
    assert scores[0] == pytest.approx(1 / 61 + 0.5 / 63)
    assert scores[1] == pytest.approx(1 / 62)
    assert scores[2] == pytest.approx(0.5 / 61)
    assert scores[3] == pytest.approx(0.5 / 62)
    assert scores[4] == 0
    assert fusion.rrf([[0, 1], [2, 3, 0]], [1.0, 0.5], n=5, k=60) == [0, 1, 2, 3, 4]


def test_rrf_agreement_beats_a_single_first_place():
    # item 1 is second in both lists; items 0 and 2 are first in one and absent from the other
    assert fusion.rrf([[0, 1], [2, 1]], [1.0, 1.0], n=3)[0] == 1
    with pytest.raises(ValueError):
        fusion.rrf([[0]], [1.0, 1.0], n=1)


def test_chunks_split_on_whitespace_of_every_kind_and_separator_punctuation():
    # what a regex [^\s,;()\[\]"'`<>!?=|*&]+ would find
    text = "a,b;c(d)[e]\"f'g`h<i>j!k?l=m|n*o&p q\tr\ns\u00a0t\u2003u\u3000v x.y:z/w\\_-~"
    assert sparse.spans(text) == list("abcdefghijklmnopqrstuv") + ["x.y:z/w\\_-~"]
    assert sparse.spans("") == [] and sparse.spans(" ,; ") == []


def test_batched_term_statistics_equal_a_plain_count_of_the_tokens():
    texts = [
        "Rebase onto main\nUse git rebase --onto main feature; rebase again. HEAD~3, ORIG_HEAD and HEAD~3.",
        "Title only",
        "\nbody only, body",
        "Krankenversicherung\npartnerpensioen and pensioen the the a Krankenversicherung",
        "foo-foo\nfoo-foo foo_bar CamelCaseWord camel",
        "",
    ]
    keys = [(f"c{i}", f"h{i}") for i in range(len(texts))]
    bm = Bm25(title_weight=2.0)
    index = bm.index([k for k, _ in keys], [h for _, h in keys], texts)
    for n, (key, text) in enumerate(zip(keys, texts)):
        doc = bm.doc_terms(key, "not read: served from the cache")
        got = {bm.vocab.terms[t]: float(tf) for t, tf in zip(doc.term_ids, doc.tf)}
        title, _, body = text.partition("\n")
        want: dict[str, float] = dict(Counter(tokenize(body)))
        for term in tokenize(title):
            want[term] = want.get(term, 0) + 2.0
        assert got == want, text
        assert doc.length == sum(want.values()) and index.lengths[n] == doc.length
    assert len(set(zip(index.doc.tolist(), index.term.tolist()))) == len(index.term)  # one posting per pair


def test_bound_is_the_most_the_query_could_score():
    texts = [
        *FILLER,
        "Rebase\n--onto moves a branch onto another base",
        "Rebase onto\nonto onto onto --onto --onto --onto",
    ]
    bm = Bm25(title_weight=2.0)
    index = bm.index([str(i) for i in range(len(texts))], ["h"] * len(texts), texts)
    scores, bound = bm.scores_and_bound("--onto branches", index)
    assert np.array_equal(scores, bm.scores("--onto branches", index))
    assert 0 < scores.max() < bound  # tf saturates below K1 + 1 per term
    # The bound sums each term's largest possible contribution: a card that
    # has both terms, many times, comes close to it; one term alone does not.
    both = bm.index(["a", "b"], ["h", "h"], ["x\n" + "--onto branches " * 200, "y\nbranches"])
    s2, b2 = bm.scores_and_bound("--onto branches", both)
    assert s2[0] / b2 > 0.9 and s2[1] / b2 < 0.5
    assert bm.scores_and_bound("absent", index) == (pytest.approx(np.zeros(len(texts))), 0.0)


def test_bound_counts_a_compound_match_at_its_weight():
    bm = Bm25()
    index = bm.index(["a", "b"], ["h", "h"], ["x\npartnerpensioen geregeld", "y\nandere dingen"])
    scores, bound = bm.scores_and_bound("pensioen", index, compound_weight=0.4)
    assert scores[0] > 0 and scores[1] == 0
    assert scores[0] <= bound and bound > 0
    assert bm.scores_and_bound("pensioen", index, compound_weight=0.0)[1] == 0.0


def test_accents_fold_on_both_sides():
    assert tokenize("Créer des Répertoires") == tokenize("creer des repertoires") == ["creer", "repertoires"]
    assert tokenize("ＦＵＬＬ－ＷＩＤＴＨ ｇｉｔ") == tokenize("full-width git")


def test_japanese_and_chinese_become_character_bigrams():
    assert tokenize("権限を変更") == ["権限", "限を", "を変", "変更"]
    assert tokenize("chmodで変更") == ["で変", "変更", "chmod"]
    assert tokenize("改") == ["改"]


def test_a_japanese_question_finds_the_card_that_says_it_differently():
    bm = Bm25()
    texts = [
        "chmod\nファイルのモードビットを変更します。",
        "chown\nファイルの所有者とグループを変更します。",
        "mkdir\nディレクトリを作成します。",
    ]
    index = bm.index(["a", "b", "c"], ["1", "2", "3"], texts)
    scores = bm.scores("ファイルの所有者を変えたい", index)
    assert int(np.argmax(scores)) == 1
    assert int(np.argmax(bm.scores("新しいディレクトリを作る", index))) == 2
