"""Pseudowords (nonce entity names) that carry no meaning a model could have memorised.

Why not a word bank: the original shipped fixed banks that leaked meaning (Omnivor, Dogicue) and
repeated words across banks. Here names are sampled fresh from a character trigram model of English
word shapes, so they look pronounceable, then filtered so that none is (or inflects to) an English
word known to ``wordfreq``.

The model (after Chen & Goodman 1999 and the CGCA idea of König et al. 2020):

* a letter is predicted from the two previous characters (``^`` pads the word start);
* every transition is *bucketed by relative position* -- ``initial`` (first two letters), ``final``
  (last two) and ``medial`` (the rest) -- so word-initial and word-final patterns do not bleed into
  each other; the word length is therefore drawn first, from the training lengths;
* probabilities use *interpolated modified Kneser-Ney* smoothing (three discounts per order and
  bucket, continuation counts at the lower orders, a uniform floor), so every letter has non-zero
  probability and each context's distribution sums to one.

Training uses the most frequent English words in ``wordfreq`` (letters only, 4-10 long, type
counts). It is not shipped as a file derived from wordfreq's CC BY-SA word lists: the first process
trains it and keeps it, with the lowercase-ASCII part of wordfreq's English frequency list the
real-word filter reads, in the user's cache (:mod:`~biaslab.suites.defeasible.diskcache`, keyed by
this file's text and wordfreq's version); later processes read both back in milliseconds instead
of importing ``wordfreq`` and training (about 0.7 CPU-s). A test checks that the cached model is
the freshly trained one, and a golden test pins a few generated words so a change in ``wordfreq``
or in this code cannot silently change generated items.
"""

from __future__ import annotations

import math
import random
import re
from bisect import bisect_right
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import accumulate
from pathlib import Path

from biaslab.errors import BiaslabError

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
VOWELS = frozenset("aeiouy")
PAD = "^"
ORDER = 3  # trigram: two characters of history
BUCKETS = ("initial", "medial", "final")
EDGE = 2  # letters counted as word-initial and as word-final

TRAIN_TOP_N = 20000
TRAIN_MIN_LEN = 4
TRAIN_MAX_LEN = 10
MIN_WORD_LEN = 4  # nearly every pronounceable 3-letter string is in wordfreq
MAX_WORD_LEN = 12

MAX_CONSONANT_RUN = 3  # "str", "nst", "ght" are fine; longer runs are not
MAX_VOWEL_RUN = 2
CLUSTER_MIN_COUNT = 5  # a consonant cluster is legal where >= 5 training words have it (same place)
COMMON_ZIPF = 4.0  # a pseudoword may not contain a word this frequent (4+ letters): "Rembody"
COMMON_MIN_LEN = 4
# profanity stems a generated name must not contain, whatever else it looks like
BLOCKED_SUBSTRINGS = (
    "bitch", "cock", "cunt", "dick", "fag", "fuck", "nazi", "nigg", "piss", "porn", "rape",
    "shit", "slut", "whore",
)  # fmt: skip


_ATTEMPTS_PER_WORD = 400  # overall budget per requested word ...
_MIN_ATTEMPTS = 2000
_STALL_ATTEMPTS = 5000  # ... but give up once this many candidates in a row were rejected


class PseudowordError(BiaslabError):
    """Pseudowords cannot be produced as asked (bad bounds, or too many for the constraints)."""


def position_bucket(index: int, length: int) -> int:
    """Bucket of the letter at ``index`` in a word of ``length``: 0 initial, 1 medial, 2 final."""
    if index < EDGE:
        return 0
    if index >= length - EDGE:
        return 2
    return 1


@cache
def _bucket_sequence(length: int) -> tuple[int, ...]:
    """:func:`position_bucket` of every letter of a word of ``length``."""
    return tuple(position_bucket(i, length) for i in range(length))


# ---------------------------------------------------------------------------------------- training


def training_words(top_n: int = TRAIN_TOP_N) -> list[str]:
    """The training corpus: frequent English words, lowercase ASCII letters only, 4-10 letters."""
    import wordfreq

    words = []
    seen: set[str] = set()
    for word in wordfreq.top_n_list("en", top_n):
        if (
            TRAIN_MIN_LEN <= len(word) <= TRAIN_MAX_LEN
            and word.isascii()
            and word.isalpha()
            and word.islower()
            and any(ch in VOWELS for ch in word)
            and word not in seen
        ):
            seen.add(word)
            words.append(word)
    return words


@dataclass(frozen=True)
class TrainingCounts:
    """What the model is estimated from: trigram counts per bucket, lengths, consonant clusters."""

    trigrams: tuple[dict[str, dict[str, int]], ...]  # [bucket][history][letter] -> count
    lengths: dict[int, int]
    clusters: tuple[dict[str, int], ...]  # [place][cluster] -> number of words
    n_words: int


def count_transitions(words: Iterable[str]) -> TrainingCounts:
    """Count letter trigrams (by position bucket), word lengths and consonant clusters (by place)."""
    trigrams: tuple[dict[str, dict[str, int]], ...] = tuple({} for _ in BUCKETS)
    clusters: tuple[dict[str, int], ...] = tuple({} for _ in BUCKETS)
    lengths: dict[int, int] = {}
    n_words = 0
    for word in words:
        if not (word.isascii() and word.isalpha() and word.islower()):
            raise PseudowordError(f"training word {word!r} is not lowercase ASCII letters")
        n_words += 1
        lengths[len(word)] = lengths.get(len(word), 0) + 1
        for start, run in _consonant_runs(word):
            place = 0 if start == 0 else 2 if start + run == len(word) else 1
            cluster = word[start : start + run]
            clusters[place][cluster] = clusters[place].get(cluster, 0) + 1
        padded = PAD * (ORDER - 1) + word
        for i, ch in enumerate(word):
            row = trigrams[position_bucket(i, len(word))].setdefault(padded[i : i + ORDER - 1], {})
            row[ch] = row.get(ch, 0) + 1
    return TrainingCounts(trigrams, lengths, clusters, n_words)


def build_pseudoword_model(words: Iterable[str] | None = None) -> PseudowordModel:
    """Train a model on ``words`` (default: :func:`training_words`)."""
    counts = count_transitions(training_words() if words is None else words)
    if not counts.n_words:
        raise PseudowordError("cannot train a pseudoword model on no words")
    return PseudowordModel.from_counts(counts)


# ---------------------------------------------------------------------------------------- model


#: KenLM's ``--discount_fallback`` discounts, for count-of-counts too sparse to estimate from
FALLBACK_DISCOUNTS = (0.5, 1.0, 1.5)


def _discounts(counts: Iterable[int]) -> tuple[float, float, float]:
    """Modified Kneser-Ney discounts D1, D2, D3+ from count-of-counts (Chen & Goodman 1999).

    The estimates are only meaningful when each lies strictly inside (0, c) for its count c: a
    discount of 0 leaves a history no mass to pass to the lower order (letters never seen after it
    would get probability 0), and one of c or more gives seen letters no mass of their own. Sparse
    count-of-counts (tiny corpora) produce such values, so, as KenLM does with
    ``--discount_fallback``, they are replaced by :data:`FALLBACK_DISCOUNTS`.
    """
    n = [0, 0, 0, 0, 0]
    for c in counts:
        if 1 <= c <= 4:
            n[c] += 1
    if n[1] == 0 or n[2] == 0 or n[3] == 0:
        return FALLBACK_DISCOUNTS
    y = n[1] / (n[1] + 2 * n[2])
    estimates = (
        1 - 2 * y * n[2] / n[1],
        2 - 3 * y * n[3] / n[2],
        3 - 4 * y * n[4] / n[3],
    )
    if any(not 0.0 < d < count for count, d in enumerate(estimates, start=1)):
        return FALLBACK_DISCOUNTS
    return estimates


@dataclass(frozen=True)
class _Level:
    """One order of one bucket: (adjusted) counts per history and that order's discounts."""

    rows: Mapping[str, Mapping[str, int]]
    discounts: tuple[float, float, float]


def _build_levels(trigrams: Mapping[str, Mapping[str, int]]) -> tuple[_Level, _Level, _Level]:
    """Trigram counts -> bigram/unigram continuation counts (raw after the pad, as KenLM does)."""
    bigram_left: dict[str, dict[str, set[str]]] = {}
    bigram_raw: dict[str, dict[str, int]] = {}
    for history, row in trigrams.items():
        left, h1 = history[0], history[1]
        for ch, c in row.items():
            bigram_left.setdefault(h1, {}).setdefault(ch, set()).add(left)
            raw = bigram_raw.setdefault(h1, {})
            raw[ch] = raw.get(ch, 0) + c
    bigrams: dict[str, dict[str, int]] = {}
    for h1, row_sets in bigram_left.items():
        if h1 == PAD:  # an n-gram starting at the pad has no left context to count
            bigrams[h1] = dict(bigram_raw[h1])
        else:
            bigrams[h1] = {ch: len(lefts) for ch, lefts in row_sets.items()}
    unigram_left: dict[str, set[str]] = {}
    for h1, row2 in bigrams.items():
        for ch in row2:
            unigram_left.setdefault(ch, set()).add(h1)
    unigrams = {"": {ch: len(lefts) for ch, lefts in unigram_left.items()}}

    def level(rows: Mapping[str, Mapping[str, int]]) -> _Level:
        return _Level(rows, _discounts(c for row in rows.values() for c in row.values()))

    return level(unigrams), level(bigrams), level(trigrams)


@dataclass(frozen=True, eq=False)
class PseudowordModel:
    """Position-bucketed character trigrams with interpolated modified Kneser-Ney smoothing."""

    levels: tuple[tuple[_Level, _Level, _Level], ...]  # [bucket][order-1]
    lengths: Mapping[int, int]
    clusters: tuple[frozenset[str], frozenset[str], frozenset[str]]  # initial, medial, final
    _cache: dict[tuple[int, str], tuple[float, ...]] = field(default_factory=dict, repr=False)
    #: per bucket: history -> cumulative distribution of the next letter
    _cum_cache: tuple[dict[str, tuple[float, ...]], ...] = field(
        default_factory=lambda: tuple({} for _ in BUCKETS), repr=False
    )
    _length_cache: dict[tuple[int, int], tuple[tuple[int, ...], tuple[int, ...]]] = field(
        default_factory=dict, repr=False
    )
    #: per word length: :meth:`_letter_tables`
    _tables_cache: dict[int, tuple[tuple[int, dict[str, tuple[float, ...]]], ...]] = field(
        default_factory=dict, repr=False
    )

    @classmethod
    def from_counts(cls, counts: TrainingCounts) -> PseudowordModel:
        """Estimate the smoothed model from training counts."""
        levels = tuple(_build_levels(bucket) for bucket in counts.trigrams)
        # a consonant cluster is legal in a place (initial / medial / final) once enough training
        # words have it there: König et al.'s legality check, learned rather than hand-listed
        # ("mc" is a surname prefix, not English phonotactics)
        initial, medial, final = (
            frozenset(c for c, k in place.items() if k >= CLUSTER_MIN_COUNT and c[:2] != "mc")
            for place in counts.clusters
        )
        return cls(levels, dict(counts.lengths), (initial, medial, final))

    def _interpolated(self, bucket: int, context: str) -> tuple[float, ...]:
        """P_KN(. | context) at order len(context)+1, recursing to the uniform floor (cached)."""
        key = (bucket, context)
        probs = self._cache.get(key)
        if probs is not None:
            return probs
        lower = (
            self._interpolated(bucket, context[1:])
            if context
            else (1.0 / len(ALPHABET),) * len(ALPHABET)
        )
        level = self.levels[bucket][len(context)]
        row = level.rows.get(context)
        if not row:  # unseen context: all mass goes to the shorter one
            probs = lower
        else:
            total = sum(row.values())
            by_count = (0.0, *level.discounts)  # discount for a count of 0, 1, 2, 3+
            gamma = sum(by_count[min(c, 3)] for c in row.values()) / total
            probs = tuple(
                (row.get(ch, 0) - by_count[min(row.get(ch, 0), 3)]) / total + gamma * low
                for ch, low in zip(ALPHABET, lower, strict=True)
            )
        self._cache[key] = probs
        return probs

    def distribution(self, bucket: int, history: str) -> tuple[float, ...]:
        """P(next letter | bucket, last two characters), one entry per letter of ``ALPHABET``."""
        if not 0 <= bucket < len(BUCKETS):
            raise PseudowordError(f"bucket must be 0..{len(BUCKETS) - 1}, got {bucket}")
        return self._interpolated(bucket, (PAD * (ORDER - 1) + history)[-(ORDER - 1) :])

    def log_prob(self, word: str) -> float:
        """Natural-log probability of ``word``'s letters given its length (candidate scoring)."""
        padded = PAD * (ORDER - 1) + word.lower()
        total = 0.0
        for i, ch in enumerate(word.lower()):
            probs = self.distribution(position_bucket(i, len(word)), padded[i : i + ORDER - 1])
            total += math.log(probs[ALPHABET.index(ch)])
        return total

    def _length_table(self, min_len: int, max_len: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        table = self._length_cache.get((min_len, max_len))
        if table is None:
            lengths = tuple(range(min_len, max_len + 1))
            # +1 so that lengths never seen in training (3, 11, 12) stay possible
            weights = [self.lengths.get(k, 0) + 1 for k in lengths]
            table = (lengths, tuple(accumulate(weights)))
            self._length_cache[(min_len, max_len)] = table
        return table

    def _cumulative(self, bucket: int, history: str) -> tuple[float, ...]:
        cum = self._cum_cache[bucket].get(history)
        if cum is None:
            cum = tuple(accumulate(self.distribution(bucket, history)))
            self._cum_cache[bucket][history] = cum
        return cum

    def _letter_tables(self, length: int) -> tuple[tuple[int, dict[str, tuple[float, ...]]], ...]:
        """(bucket, that bucket's history -> cumulative table) for each letter of a word of
        ``length`` (made once per length)."""
        tables = self._tables_cache.get(length)
        if tables is None:
            tables = tuple((b, self._cum_cache[b]) for b in _bucket_sequence(length))
            self._tables_cache[length] = tables
        return tables

    def sample(self, rng: random.Random, min_len: int, max_len: int) -> str:
        """A lowercase string: a length from the training histogram, then letters left to right."""
        lengths, cum_len = self._length_table(min_len, max_len)
        draw = rng.random
        length = lengths[bisect_right(cum_len, draw() * cum_len[-1])]
        word = PAD * (ORDER - 1)
        for bucket, table in self._letter_tables(length):
            history = word[1 - ORDER :]
            cum = table.get(history) or self._cumulative(bucket, history)
            word += _LETTER_AT[bisect_right(cum, draw() * cum[-1])]
        return word[ORDER - 1 :]


#: the letter at a cumulative table's bisection index; one past the end (a draw that the last
#: cumulative weight falls a rounding error short of) is the last letter
_LETTER_AT = ALPHABET + ALPHABET[-1]


def load_model() -> PseudowordModel:
    """The model trained on :func:`training_words` (read from the user's cache when there)."""
    return _trained()[0]


@lru_cache(maxsize=1)
def _trained() -> tuple[PseudowordModel, dict[str, float]]:
    """(the model, wordfreq's English frequencies of lowercase ASCII words), from the cache or
    computed and stored there (see the module docstring)."""
    from biaslab.suites.defeasible import diskcache

    key = _cache_key()
    cached = diskcache.load("pseudowords", key)
    if cached is not None:
        try:
            return _from_plain(cached)
        except (TypeError, ValueError, KeyError, IndexError):  # not what this code writes
            pass
    import wordfreq

    model = build_pseudoword_model()
    listed = wordfreq.get_frequency_dict("en").items()
    # most frequent first (wordfreq's own order; sorted here so that :func:`_real_words` may
    # rely on it): the frequent words are then a prefix of the list
    frequencies = dict(
        sorted(((w, f) for w, f in listed if _plain_word(w)), key=lambda entry: -entry[1])
    )
    diskcache.store("pseudowords", key, _to_plain(model, frequencies))
    return model, frequencies


def _cache_key() -> str:
    """Everything the cached model and frequencies depend on: this file and wordfreq's data."""
    import hashlib
    from importlib.metadata import version

    source = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return f"words.py {source} | wordfreq {version('wordfreq')}"


def _to_plain(model: PseudowordModel, frequencies: Mapping[str, float]) -> object:
    levels = tuple(
        tuple(
            ({history: dict(row) for history, row in level.rows.items()}, level.discounts)
            for level in bucket
        )
        for bucket in model.levels
    )
    return (levels, dict(model.lengths), model.clusters, dict(frequencies))


def _from_plain(data: object) -> tuple[PseudowordModel, dict[str, float]]:
    if not isinstance(data, tuple) or len(data) != 4:
        raise ValueError("not a cached pseudoword model")
    levels, lengths, clusters, frequencies = data
    buckets = tuple(
        tuple(_Level(rows, tuple(discounts)) for rows, discounts in bucket) for bucket in levels
    )
    if len(buckets) != len(BUCKETS) or any(len(bucket) != ORDER for bucket in buckets):
        raise ValueError("not a cached pseudoword model")
    if not isinstance(frequencies, dict):
        raise ValueError("not a cached frequency list")
    model = PseudowordModel(buckets, lengths, tuple(clusters))  # type: ignore[arg-type]
    return model, frequencies


def _plain_word(word: str) -> bool:
    """Lowercase ASCII letters only: the words whose frequencies the filters read."""
    return word.isascii() and word.isalpha() and word.islower()


# ---------------------------------------------------------------------------------------- filters


def _consonant_runs(word: str) -> list[tuple[int, int]]:
    """(start, length) of each maximal consonant run; 'y' is a consonant only word-initially."""
    runs = []
    start = -1
    for i, ch in enumerate(word):
        consonant = ch not in VOWELS or (ch == "y" and i == 0)
        if consonant and start < 0:
            start = i
        elif not consonant and start >= 0:
            runs.append((start, i - start))
            start = -1
    if start >= 0:
        runs.append((start, len(word) - start))
    return runs


def legality_problem(
    word: str, *, min_len: int = 4, max_len: int = 8, model: PseudowordModel | None = None
) -> str | None:
    """Why ``word`` is not a pronounceable, neutral pseudoword shape, or None if it is fine.

    Checks length, letters only, a vowel, no letter three times running, no doubled first letter,
    consonant runs (<= 3 letters, each attested in that place in the training words), vowel runs
    <= 2, q followed by u, no inflected look (-ing, -ed, plural -s: the names are used as singular
    nouns and get pluralised) and no profanity stem.
    """
    w = word.lower()
    if not min_len <= len(w) <= max_len:
        return f"length {len(w)} outside {min_len}-{max_len}"
    if not (w.isascii() and w.isalpha()):
        return "not plain letters"
    if w[0] not in "aeiou" and VOWELS.isdisjoint(w[1:]):
        return "no vowel"
    tripled = _TRIPLED.search(w)
    if tripled:
        return f"letter {tripled.group(1)!r} three times in a row"
    if w[0] == w[1]:
        return "doubled first letter"
    legal = (model or load_model()).clusters
    # an initial "y" is a consonant: stand it in with a letter that is one for the patterns
    shape = "b" + w[1:] if w[0] == "y" else w
    for match in _CONSONANT_RUN.finditer(shape):
        start, end = match.span()
        place = 0 if start == 0 else 2 if end == len(w) else 1
        cluster = w[start:end]
        if end - start > MAX_CONSONANT_RUN or cluster not in legal[place]:
            return f"consonant cluster {cluster!r} not legal {BUCKETS[place]}ly"
    if _LONG_VOWEL_RUN.search(shape):
        return "vowel run too long"
    if _Q_WITHOUT_U.search(w):
        return "q without u"
    if _looks_inflected(w):
        return "looks inflected"
    if _BLOCKED.search(w):
        return "contains a blocked stem"
    return None


# the checks above as patterns (each replaces a loop over the letters of every candidate)
_TRIPLED = re.compile(r"(.)\1\1")
_CONSONANT_RUN = re.compile(r"[^aeiouy]+")
_LONG_VOWEL_RUN = re.compile(f"[aeiouy]{{{MAX_VOWEL_RUN + 1}}}")
_Q_WITHOUT_U = re.compile(r"q(?!u)")
_BLOCKED = re.compile("|".join(BLOCKED_SUBSTRINGS))


def _looks_inflected(w: str) -> bool:
    """-ing, -ed or a plural -s ending (lowercase ``w``)."""
    return w.endswith(("ing", "ed")) or (
        w.endswith("s") and not w.endswith(("ss", "us", "is", "os"))
    )


def deinflections(word: str) -> list[str]:
    """Plausible stems of ``word`` if it were an inflected English form (plural, past, -ing)."""
    w = word.lower()
    stems: list[str] = []

    def add(stem: str) -> None:
        if len(stem) >= 3 and stem not in stems:
            stems.append(stem)

    if w.endswith("ies"):
        add(w[:-3] + "y")
    if w.endswith("es"):
        add(w[:-2])
    if w.endswith("s") and not w.endswith("ss"):
        add(w[:-1])
    if w.endswith("ied"):
        add(w[:-3] + "y")
    for suffix in ("ed", "ing"):
        if w.endswith(suffix):
            stem = w[: -len(suffix)]
            add(stem)
            add(stem + "e")
            if len(stem) >= 2 and stem[-1] == stem[-2]:
                add(stem[:-1])  # running -> run, stopped -> stop
    return stems


def _english_frequencies() -> dict[str, float]:
    """wordfreq's English frequencies of lowercase ASCII words (cached with the model)."""
    return _trained()[1]


@lru_cache(maxsize=65536)
def _zipf(word: str) -> float:
    """``wordfreq.zipf_frequency(word, "en")``. A lowercase ASCII word (every word the generator
    asks about) is one token of itself, so its Zipf value is :func:`zipf_of_frequency` of its
    entry in the frequency list (0 without one); anything else is asked of wordfreq."""
    if not _plain_word(word):
        import wordfreq

        if word not in wordfreq.get_frequency_dict("en"):
            return 0.0
        return float(wordfreq.zipf_frequency(word, "en"))
    frequency = _english_frequencies().get(word)
    return 0.0 if frequency is None else zipf_of_frequency(frequency)


#: ``wordfreq.zipf_to_freq(0)``: the floor ``zipf_frequency`` puts under every frequency
_ZIPF_FLOOR = 1e-9


def zipf_of_frequency(frequency: float) -> float:
    """What ``wordfreq.zipf_frequency`` returns for a word that is a single token with this
    frequency in the "en" list: its one-token combination ``1 / (1 / f)``, floored, rounded to
    three significant digits, on the Zipf scale, rounded to hundredths.

    Written out because ``zipf_frequency`` runs its regex tokenizer on every new word (tens of
    microseconds; thousands of words per generated set) only to find the word itself; the test
    suite checks this against ``zipf_frequency`` on the list's words."""
    freq = max(1.0 / (1.0 / frequency), _ZIPF_FLOOR)
    rounded = round(freq, math.floor(-math.log(freq, 10)) + 3)
    return round(math.log(rounded, 10) + 9, 2)


@dataclass(frozen=True)
class _RealWords:
    """What the real-word filters look up, made once from the frequency list: sets instead of a
    Zipf value per looked-up string (the filters see about 40 candidates per conversation)."""

    frequencies: dict[str, float]
    #: every listed word of 4+ letters with Zipf >= :data:`COMMON_ZIPF`
    common: frozenset[str]
    #: whether every listed word has Zipf > 0, so that "is a word" is "is listed"
    all_listed: bool

    @classmethod
    def of(cls, frequencies: dict[str, float]) -> _RealWords:
        """Read ``frequencies`` (most frequent first) only as far as the frequent words go:
        :func:`zipf_of_frequency` never decreases with the frequency, and rounding cannot lift
        a frequency half the threshold's to it."""
        floor = 10.0 ** (COMMON_ZIPF - 9) / 2
        common = []
        for word, frequency in frequencies.items():
            if frequency < floor:
                break
            if len(word) >= COMMON_MIN_LEN and zipf_of_frequency(frequency) >= COMMON_ZIPF:
                common.append(word)
        lowest = next(reversed(frequencies.values()), None)
        all_listed = lowest is None or zipf_of_frequency(lowest) > 0
        return cls(frequencies, frozenset(common), all_listed)


_REAL_WORDS: list[_RealWords] = []  # the one made from the current frequency list


def _real_words() -> _RealWords:
    """:class:`_RealWords` of :func:`_english_frequencies` (made again if that list is)."""
    frequencies = _english_frequencies()
    if not _REAL_WORDS or _REAL_WORDS[0].frequencies is not frequencies:
        _REAL_WORDS[:] = [_RealWords.of(frequencies)]
    return _REAL_WORDS[0]


def is_english(word: str) -> bool:
    """True if ``word`` or a simple de-inflection of it is in ``wordfreq`` (any frequency)."""
    w = word.lower()
    if _plain_word(w):
        real = _real_words()
        if real.all_listed:  # then Zipf > 0 is being listed (de-inflections are plain too)
            return _listed_or_inflected(w, real.frequencies)
    return _zipf(w) > 0 or any(_zipf(stem) > 0 for stem in deinflections(w))


def _listed_or_inflected(w: str, listed: Mapping[str, float]) -> bool:
    return w in listed or any(stem in listed for stem in deinflections(w))


def contains_common_word(word: str) -> bool:
    """True if a proper substring of 4+ letters is a frequent English word (zipf >= 4): "body"."""
    return _contains_any(word.lower(), _real_words().common)


def _contains_any(w: str, common: frozenset[str]) -> bool:
    """Whether a proper substring of ``w`` of 4+ letters is in ``common``."""
    n = len(w)
    for size in range(COMMON_MIN_LEN, n):
        for i in range(n - size + 1):
            if w[i : i + size] in common:
                return True
    return False


@lru_cache(maxsize=16)
def _exclusion(exclude: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """(the excluded words, lowercase; every string within one deletion of one of them): the
    same for every call with the same list (the lexicon's source names), so made once."""
    excluded = frozenset(w.lower() for w in exclude)
    near: set[str] = set()
    for word in excluded:
        near |= _neighbourhood(word)
    return excluded, frozenset(near)


def _neighbourhood(word: str) -> set[str]:
    """The word and every one-letter deletion: two words sharing any of these are confusable."""
    return {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}


# ---------------------------------------------------------------------------------------- API


def pseudowords(
    rng: random.Random,
    n: int,
    *,
    min_len: int = 4,
    max_len: int = 8,
    exclude: Collection[str] = (),
    allow_similar: bool = False,
) -> list[str]:
    """``n`` distinct capitalised pseudowords, drawn with ``rng`` only (same state, same words).

    Every word passes :func:`legality_problem`, is not English (:func:`is_english`), contains no
    frequent English word (:func:`contains_common_word`) and is not in ``exclude`` (any case).
    Unless ``allow_similar``, no two returned words -- nor a returned and an excluded word -- are
    within one edit or transposition of each other, so a conversation never mixes near-twins like
    "Kitylu" and "Kitylo". Raises :class:`PseudowordError` for invalid bounds, or if ``n`` words
    are not found within a generous number of attempts.
    """
    if n < 0:
        raise PseudowordError(f"n must be >= 0, got {n}")
    if not MIN_WORD_LEN <= min_len <= max_len <= MAX_WORD_LEN:
        raise PseudowordError(
            f"need {MIN_WORD_LEN} <= min_len <= max_len <= {MAX_WORD_LEN}, "
            f"got min_len={min_len}, max_len={max_len}"
        )
    model = load_model()
    real = _real_words()
    listed = real.frequencies if real.all_listed else None
    excluded, near_excluded = _exclusion(frozenset(exclude))
    taken: set[str] = set() if allow_similar else set(near_excluded)
    out: list[str] = []
    chosen: set[str] = set()
    attempts = max(_MIN_ATTEMPTS, _ATTEMPTS_PER_WORD * n)
    last_success = 0
    for attempt in range(attempts):
        if len(out) == n or attempt - last_success > _STALL_ATTEMPTS:
            break
        w = model.sample(rng, min_len, max_len)
        # the filters in order of cost per rejection (each rejects on its own, so the order
        # does not change which words are kept)
        if (
            w in chosen
            or w in excluded
            or _looks_inflected(w)  # legality_problem's most frequent reason
            or (_listed_or_inflected(w, listed) if listed is not None else is_english(w))
            or _contains_any(w, real.common)
            or legality_problem(w, min_len=min_len, max_len=max_len, model=model)
        ):
            continue
        if not allow_similar:
            hood = _neighbourhood(w)
            if not hood.isdisjoint(taken):
                continue
        chosen.add(w)
        if not allow_similar:
            taken |= hood
        out.append(w.capitalize())
        last_success = attempt
    if len(out) < n:
        raise PseudowordError(
            f"found only {len(out)} of {n} distinct pseudowords of {min_len}-{max_len} letters "
            "before running out of attempts; widen the length bounds, shrink exclude or allow "
            "similar words"
        )
    return out
