"""Pseudowords: seeded, distinct, pronounceable, never English, from a bucketed Kneser-Ney model."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest
import wordfreq
from hypothesis import example, given, settings
from hypothesis import strategies as st

from biaslab.errors import BiaslabError
from biaslab.suites.defeasible import diskcache
from biaslab.suites.defeasible import words as W
from biaslab.suites.defeasible.words import (
    ALPHABET,
    PAD,
    PseudowordError,
    build_pseudoword_model,
    contains_common_word,
    count_transitions,
    deinflections,
    is_english,
    legality_problem,
    load_model,
    position_bucket,
    pseudowords,
)


@pytest.fixture(scope="module")
def batch() -> list[str]:
    return pseudowords(random.Random(12345), 300)


def test_same_rng_state_gives_same_words() -> None:
    assert pseudowords(random.Random(7), 40) == pseudowords(random.Random(7), 40)
    assert pseudowords(random.Random(7), 40) != pseudowords(random.Random(8), 40)


def test_golden_words_pin_model_and_filters() -> None:
    # changes here mean generated items change: a new wordfreq release or an edit to the model
    assert pseudowords(random.Random(0), 8) == [
        "Redinsen",
        "Ovinge",
        "Maritian",
        "Desindyo",
        "Mortion",
        "Golearo",
        "Merytick",
        "Presin",
    ]


def test_only_the_given_rng_is_used() -> None:
    random.seed(99)
    before = random.getstate()
    pseudowords(random.Random(1), 20)
    assert random.getstate() == before


def test_a_prefix_of_draws_is_stable() -> None:
    # the first k words do not depend on how many are asked for
    assert pseudowords(random.Random(3), 50)[:10] == pseudowords(random.Random(3), 10)


def test_distinct_capitalised_and_within_bounds(batch: list[str]) -> None:
    assert len(batch) == 300
    assert len({w.lower() for w in batch}) == 300
    for w in batch:
        assert w[0].isupper() and w[1:].islower() and w.isalpha() and w.isascii()
        assert 4 <= len(w) <= 8


def test_every_word_passes_the_filters(batch: list[str]) -> None:
    for w in batch:
        low = w.lower()
        assert legality_problem(w) is None, w
        assert not any(low[i] == low[i + 1] == low[i + 2] for i in range(len(low) - 2))
        assert any(ch in "aeiouy" for ch in low)
        assert not contains_common_word(w)


def test_no_word_is_english_by_wordfreq_itself(batch: list[str]) -> None:
    for w in batch:
        assert wordfreq.zipf_frequency(w.lower(), "en") == 0, w
        for stem in deinflections(w):
            assert wordfreq.zipf_frequency(stem, "en") == 0, (w, stem)


def test_no_two_words_are_near_twins(batch: list[str]) -> None:
    lowered = [w.lower() for w in batch]
    hoods = [W._neighbourhood(w) for w in lowered]
    for i in range(len(hoods)):
        for j in range(i + 1, len(hoods)):
            assert hoods[i].isdisjoint(hoods[j]), (lowered[i], lowered[j])


def test_exclude_is_case_insensitive_and_keeps_distance() -> None:
    first = pseudowords(random.Random(5), 10)
    again = pseudowords(random.Random(5), 10, exclude=[w.upper() for w in first])
    assert not {w.lower() for w in first} & {w.lower() for w in again}
    taken = set().union(*(W._neighbourhood(w.lower()) for w in first))
    assert all(W._neighbourhood(w.lower()).isdisjoint(taken) for w in again)


@pytest.mark.parametrize(("lo", "hi"), [(4, 4), (4, 5), (6, 9), (10, 12)])
def test_length_bounds(lo: int, hi: int) -> None:
    for w in pseudowords(random.Random(lo * 100 + hi), 15, min_len=lo, max_len=hi):
        assert lo <= len(w) <= hi


@pytest.mark.parametrize(("n", "lo", "hi"), [(-1, 4, 8), (3, 3, 8), (3, 6, 5), (3, 4, 13)], ids=str)
def test_bad_arguments_raise_a_clear_error(n: int, lo: int, hi: int) -> None:
    with pytest.raises(PseudowordError):
        pseudowords(random.Random(0), n, min_len=lo, max_len=hi)


def test_impossible_requests_raise_not_hang() -> None:
    assert issubclass(PseudowordError, BiaslabError)
    with pytest.raises(PseudowordError, match="found only"):
        pseudowords(random.Random(0), 3000, min_len=4, max_len=4)


def test_zero_words() -> None:
    assert pseudowords(random.Random(0), 0) == []


def test_legality_rules() -> None:
    model = load_model()
    assert legality_problem("Kitylu", model=model) is None
    assert legality_problem("Baaab", model=model) is not None  # letter three times
    assert legality_problem("Strptal", model=model) is not None  # 4-consonant run
    assert legality_problem("Bcdfg", model=model) is not None  # no vowel
    assert legality_problem("Zagqot", model=model) is not None  # q without u
    assert legality_problem("Torbing", model=model) is not None  # looks inflected
    assert legality_problem("Dorbs", model=model) is not None  # looks plural
    assert legality_problem("Ngalo", model=model) is not None  # "ng" is not an English onset
    assert legality_problem("Abc", model=model) is not None  # too short for the default


def test_real_word_filter_catches_inflections() -> None:
    assert "run" in deinflections("running")
    assert "bake" in deinflections("baked")
    assert "box" in deinflections("boxes")
    assert "city" in deinflections("cities")
    for word in ("Table", "tables", "jumped", "running", "carries"):
        assert is_english(word), word
    assert not is_english("Kitylu")
    assert contains_common_word("Rembody")  # "body"
    assert not contains_common_word("Kitylu")


def test_real_word_lookup_matches_wordfreq() -> None:
    for word in ("the", "heron", "zibber", "running", "qwxzv", "cat", "kitylu"):
        assert W._zipf(word) == wordfreq.zipf_frequency(word, "en")


# ---------------------------------------------------------------------------------------- model

_CONTEXT_CHARS = PAD + ALPHABET


@settings(max_examples=300, deadline=None)
@given(
    bucket=st.integers(0, 2),
    history=st.text(alphabet=_CONTEXT_CHARS, min_size=0, max_size=2),
)
def test_kneser_ney_distributions_sum_to_one(bucket: int, history: str) -> None:
    probs = load_model().distribution(bucket, history)
    assert len(probs) == len(ALPHABET)
    assert math.isclose(sum(probs), 1.0, rel_tol=0, abs_tol=1e-12)
    assert min(probs) > 0  # smoothing leaves no zero


@settings(max_examples=60, deadline=None)
@given(
    corpus=st.lists(st.text(alphabet="abcdefg", min_size=1, max_size=9), min_size=1, max_size=30),
    bucket=st.integers(0, 2),
    history=st.text(alphabet=PAD + "abcdefgxyz", min_size=0, max_size=2),
)
# a corpus whose trigram count-of-counts estimate D2 = 0: history "^c" had no mass to back off with
@example(corpus=["a", "a", "a", "b", "c", "ca", "ca"], bucket=0, history="c")
def test_kneser_ney_sums_to_one_on_any_corpus(corpus: list[str], bucket: int, history: str) -> None:
    probs = build_pseudoword_model(corpus).distribution(bucket, history)
    assert math.isclose(sum(probs), 1.0, rel_tol=0, abs_tol=1e-12)
    assert min(probs) > 0


def test_unseen_context_backs_off_to_the_shorter_one() -> None:
    model = build_pseudoword_model(["abab", "baba", "abba", "aabb"])
    # "zz" was never seen as a history: all mass goes to the "z" level, itself unseen -> unigram
    assert model.distribution(1, "zz") == model._interpolated(1, "")
    # a seen context puts most mass on what followed it in training
    probs = model.distribution(0, "")
    unseen = max(p for ch, p in zip(ALPHABET, probs, strict=True) if ch not in "ab")
    assert min(probs[ALPHABET.index("a")], probs[ALPHABET.index("b")]) > 10 * unseen


def test_log_prob_prefers_english_shapes() -> None:
    model = load_model()
    assert model.log_prob("Mondel") > model.log_prob("Xqzjvk")


def test_position_buckets() -> None:
    assert [position_bucket(i, 7) for i in range(7)] == [0, 0, 1, 1, 1, 2, 2]
    assert [position_bucket(i, 4) for i in range(4)] == [0, 0, 2, 2]
    counts = count_transitions(["stand", "blink"])
    assert counts.trigrams[0] == {"^^": {"s": 1, "b": 1}, "^s": {"t": 1}, "^b": {"l": 1}}
    assert counts.trigrams[1] == {"st": {"a": 1}, "bl": {"i": 1}}
    assert counts.trigrams[2] == {"ta": {"n": 1}, "an": {"d": 1}, "li": {"n": 1}, "in": {"k": 1}}


def test_position_buckets_are_actually_used() -> None:
    model = load_model()

    def tv(p: tuple[float, ...], q: tuple[float, ...]) -> float:
        return 0.5 * sum(abs(a - b) for a, b in zip(p, q, strict=True))

    # word-initial letters differ from word-medial letters (unigram level of each bucket)
    assert tv(model._interpolated(0, ""), model._interpolated(1, "")) > 0.15
    # same two-letter history, different bucket: "-ing" is a word ending, not a word middle
    final, medial = model.distribution(2, "in"), model.distribution(1, "in")
    assert final[ALPHABET.index("g")] > 2 * medial[ALPHABET.index("g")]
    assert tv(final, medial) > 0.15
    # and in the generated words: first letters vs third letters
    words = [w.lower() for w in pseudowords(random.Random(11), 400, min_len=6, max_len=8)]
    first = [sum(w[0] == ch for w in words) / len(words) for ch in ALPHABET]
    third = [sum(w[2] == ch for w in words) / len(words) for ch in ALPHABET]
    assert tv(tuple(first), tuple(third)) > 0.2


def test_count_transitions_rejects_non_letters() -> None:
    with pytest.raises(PseudowordError):
        count_transitions(["fine", "Not-ok"])
    with pytest.raises(PseudowordError):
        build_pseudoword_model([])


def test_out_of_range_discount_estimates_fall_back() -> None:
    """Chen & Goodman's estimates outside (0, c) (here D2 = 0) are replaced by KenLM's fallback;
    in-range estimates are kept."""
    from biaslab.suites.defeasible.words import FALLBACK_DISCOUNTS, _discounts

    assert _discounts([1, 1, 1, 2, 3, 3]) == FALLBACK_DISCOUNTS  # D2 < 0 and D3 = 3
    kept = _discounts([1] * 20 + [2] * 8 + [3] * 4 + [4] * 2)
    assert kept != FALLBACK_DISCOUNTS and all(0 < d < c for c, d in enumerate(kept, start=1))


def test_zipf_from_the_frequency_list_equals_wordfreq() -> None:
    """The shortcut for single-token words gives exactly ``wordfreq.zipf_frequency``: on every
    listed word near the frequent-word threshold and on a sample of the others."""
    import wordfreq

    from biaslab.suites.defeasible.words import COMMON_ZIPF, zipf_of_frequency

    listed = {
        word: f
        for word, f in wordfreq.get_frequency_dict("en").items()
        if word.isascii() and word.isalpha() and word.islower() and 3 <= len(word) <= 12
    }
    near = [w for w, f in listed.items() if abs(math.log10(f) + 9 - COMMON_ZIPF) < 0.1]
    others = random.Random(3).sample(sorted(listed), 3000)
    assert len(near) > 100
    for word in [*near, *others]:
        assert zipf_of_frequency(listed[word]) == wordfreq.zipf_frequency(word, "en"), word


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The pseudoword model's cache in a fresh directory, and the in-process copies dropped."""
    monkeypatch.setenv(diskcache.ENV, str(tmp_path))
    W._trained.cache_clear()
    W._zipf.cache_clear()
    yield tmp_path
    W._trained.cache_clear()
    W._zipf.cache_clear()


def ordered(data: object) -> object:
    """Plain data with every dict as its list of items (so dict order counts)."""
    if isinstance(data, dict):
        return [(key, ordered(value)) for key, value in data.items()]
    if isinstance(data, list | tuple):
        return [ordered(value) for value in data]
    if isinstance(data, frozenset):
        return sorted(data)
    return data.hex() if isinstance(data, float) else data


def test_the_cached_model_is_the_freshly_trained_one(
    own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train = W.build_pseudoword_model
    first_model, frequencies = W._trained()
    assert len(list(own_cache.glob("pseudowords-*.marshal"))) == 1

    def refuse(*args: object) -> None:
        raise AssertionError("trained again although the model was cached")

    W._trained.cache_clear()
    monkeypatch.setattr(W, "build_pseudoword_model", refuse)
    cached_model, cached_frequencies = W._trained()
    assert cached_model is not first_model
    # the same counts, discounts (to the bit), clusters and dict order as a fresh training, and
    # the same frequencies
    fresh = ordered(W._to_plain(train(), frequencies))
    assert ordered(W._to_plain(cached_model, cached_frequencies)) == fresh
    assert pseudowords(random.Random(0), 8)[:3] == ["Redinsen", "Ovinge", "Maritian"]


def test_an_unreadable_cache_entry_is_trained_again(own_cache: Path) -> None:
    import marshal

    W._trained()
    [entry] = own_cache.glob("pseudowords-*.marshal")
    entry.write_bytes(b"\x00not marshal data")
    W._trained.cache_clear()
    assert pseudowords(random.Random(0), 2) == ["Redinsen", "Ovinge"]
    assert W._from_plain(marshal.loads(entry.read_bytes()))  # rewritten


def test_the_cache_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(diskcache.ENV, "")
    assert diskcache.entry_path("pseudowords", "key") is None
    assert diskcache.load("pseudowords", "key") is None
    diskcache.store("pseudowords", "key", (1, 2))  # nothing to write to, and no error


def test_no_home_directory_turns_the_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A container's arbitrary user id may have neither HOME nor a passwd entry: compute instead."""

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv(diskcache.ENV, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert diskcache.cache_dir() is None
    assert diskcache.load("pseudowords", "key") is None
    diskcache.store("pseudowords", "key", {"a": 1})  # nothing to write to, and no error


def test_concurrent_writers_leave_one_whole_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv(diskcache.ENV, str(tmp_path))
    value = {"model": list(range(20_000))}
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: diskcache.store("x", "k", value), range(8)))
    assert diskcache.load("x", "k") == value
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []


# ------------------------------------------------------------------------ fast paths vs plain ones


def _plain_sample(model: W.PseudowordModel, rng: random.Random, min_len: int, max_len: int) -> str:
    """:meth:`PseudowordModel.sample` written plainly: the distribution of every letter asked
    afresh and accumulated, one draw per letter."""
    from bisect import bisect_right
    from itertools import accumulate

    lengths = range(min_len, max_len + 1)
    cum = list(accumulate(model.lengths.get(k, 0) + 1 for k in lengths))
    length = lengths[bisect_right(cum, rng.random() * cum[-1])]
    word = ""
    for i in range(length):
        cum = list(accumulate(model.distribution(position_bucket(i, length), word[-2:])))
        word += ALPHABET[min(bisect_right(cum, rng.random() * cum[-1]), len(ALPHABET) - 1)]
    return word


def _plain_is_english(word: str) -> bool:
    w = word.lower()
    return W._zipf(w) > 0 or any(W._zipf(stem) > 0 for stem in deinflections(w))


def _plain_contains_common_word(word: str) -> bool:
    w = word.lower()
    return any(
        W._zipf(w[i : i + size]) >= W.COMMON_ZIPF
        for size in range(W.COMMON_MIN_LEN, len(w))
        for i in range(len(w) - size + 1)
    )


def _plain_pseudowords(rng: random.Random, n: int, exclude: frozenset[str]) -> list[str]:
    """:func:`pseudowords` (4-8 letters) with every filter in its plain form, in the order the
    filters are documented."""
    model = load_model()
    excluded = {w.lower() for w in exclude}
    taken = set().union(*(W._neighbourhood(w) for w in excluded))
    out: list[str] = []
    for _ in range(max(W._MIN_ATTEMPTS, W._ATTEMPTS_PER_WORD * n)):
        if len(out) == n:
            break
        w = _plain_sample(model, rng, 4, 8)
        if w.capitalize() in out or w in excluded or legality_problem(w, model=model):
            continue
        hood = W._neighbourhood(w)
        if hood & taken or _plain_is_english(w) or _plain_contains_common_word(w):
            continue
        taken |= hood
        out.append(w.capitalize())
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), lo=st.integers(4, 8), extra=st.integers(0, 4))
def test_sampling_from_kept_tables_is_sampling_plainly(seed: int, lo: int, extra: int) -> None:
    model = load_model()
    fast, plain = random.Random(seed), random.Random(seed)
    hi = min(lo + extra, 12)
    for _ in range(30):
        assert model.sample(fast, lo, hi) == _plain_sample(model, plain, lo, hi)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(1, 15), exclude=st.sampled_from([(), ("Kitylu",)]))
def test_pseudowords_are_those_of_the_plain_filters(
    seed: int, n: int, exclude: tuple[str, ...]
) -> None:
    """The filters run in another order and as set lookups; the words (and the draws) must be
    those of the filters written out in their documented order from Zipf values."""
    assert pseudowords(random.Random(seed), n, exclude=exclude) == _plain_pseudowords(
        random.Random(seed), n, frozenset(exclude)
    )


def test_real_word_sets_are_the_zipf_thresholds() -> None:
    """The frequent-word set and "every listed word counts" are what the Zipf values say, read
    from a list kept most frequent first."""
    real = W._real_words()
    listed = list(real.frequencies.values())
    assert all(a >= b for a, b in pairwise(listed))
    assert real.common == {
        w for w in real.frequencies if len(w) >= W.COMMON_MIN_LEN and W._zipf(w) >= W.COMMON_ZIPF
    }
    assert len(real.common) > 1000
    assert real.all_listed == all(W._zipf(w) > 0 for w in real.frequencies)


_WORDISH = st.one_of(
    st.text(alphabet=ALPHABET, min_size=1, max_size=12),
    st.sampled_from(["Table", "tables", "jumped", "running", "carries", "Rembody", "caf\u00e9s",
                     "Kitylu", "well-known", "bodys", "STATIONS"]),
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(word=_WORDISH)
def test_real_word_filters_agree_with_their_zipf_definitions(word: str) -> None:
    assert is_english(word) == _plain_is_english(word)
    assert contains_common_word(word) == _plain_contains_common_word(word)


def test_real_word_filters_agree_on_listed_words_and_their_forms() -> None:
    real = W._real_words()
    words = random.Random(5).sample(sorted(real.frequencies), 2000)
    for word in [*words, *(w + "s" for w in words[:300]), *("zo" + w for w in words[:300])]:
        assert is_english(word) == _plain_is_english(word), word
        assert contains_common_word(word) == _plain_contains_common_word(word), word
