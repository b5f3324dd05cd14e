/* divaeval._native: compiled loops for the steps that numpy cannot vectorise well.
 *
 * Optional: divaeval runs without it (numpy only), and gives the same numbers bit for bit,
 * which the tests check on both paths (tests/test_native.py). It is built with
 * -ffp-contract=off so that a*b + c stays two roundings, as numpy computes it.
 *
 * - novelty_gains: the novelty-biased gains of rankings (divaeval.metrics.novelty);
 * - subtopic_hits, ranked_novelty_gains, running_sums_at: relevant pairs, covered subtopics
 *   and MAP-IA's precision sums of rankings at cutoffs, their binary novelty gains at every
 *   rank, and running sums of discounted gains at cutoffs (divaeval.metrics.families.ndeval);
 * - greedy_patterns, greedy_extend: ndeval's greedy ideal ranking (ndeval 4.5; Clarke et al. 2008), the
 *   pattern-wise loop of divaeval.metrics.novelty.GreedyIdeal._extend, a topic at a time;
 *   rbp_settled_length: the length past which its RBP sums no longer change;
 * - line_ends: "\r\n" and "\r" made "\n"; unfilled_bytearray: the buffer a file is read into
 *   (divaeval.io._text);
 * - grid_spans, gather_words, parse_short_integers, parse_short_decimals: the fields of a
 *   plain text, its tokens as word matrices, and short numbers read from them
 *   (divaeval.io._tokens, divaeval.io._words, divaeval.io._numbers); grid_words: all of
 *   these in one pass over a plain text;
 * - score_order, rank_positions, judged_cells: a run's rows in ranking order, its repeated
 *   docnos and ranks, and its ranked documents' scores and judgments in [topics x ranks]
 *   cells (divaeval.judged.judge);
 * - fixed_cells: rows of numbers printed with fixed decimals (divaeval.report.numbers);
 * - few_uniques, renumber: keys with few distinct values numbered by a hash table, not a
 *   sort, and codes renumbered in place (divaeval.io._words);
 * - hash_words, hash_factorize, hash_slots, find_rows: tokens as word rows hashed, numbered
 *   and found among another file's by a hash table, exactly (divaeval.io._words);
 * - trec_lines: trec_eval's per-topic lines of a run (divaeval.report.trec_eval).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(_MSC_VER)
#include <intrin.h>
static inline int
lowest_bit(uint64_t x)
{
    unsigned long at;
    _BitScanForward64(&at, x);
    return (int)at;
}
#else
#define lowest_bit(x) __builtin_ctzll(x)
#endif

/* a word's value is its 8 bytes read little-endian; swapped, values compare as the bytes do */
#if defined(_MSC_VER)
#define SWAP_BYTES(w) _byteswap_uint64(w)
#else
#define SWAP_BYTES(w) __builtin_bswap64(w)
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LITTLE_ENDIAN_WORD(w) SWAP_BYTES(w)
#else
#define LITTLE_ENDIAN_WORD(w) (w)
#endif

static int
check_size(Py_buffer *buffer, Py_ssize_t items, Py_ssize_t item_size, const char *name)
{
    if (buffer->len != items * item_size) {
        PyErr_Format(PyExc_ValueError, "divaeval._native: %s holds %zd bytes, not %zd", name,
                     buffer->len, items * item_size);
        return -1;
    }
    return 0;
}

/* A table of a topic's relevance codes (bit s: relevant to subtopic s) and their pattern
 * numbers: open addressing over a power-of-two size at least twice the pool, and the list of
 * the slots taken, so that a topic clears only those. */
typedef struct {
    uint64_t *codes; /* 0: a free slot (a code is never 0: such a document is left out) */
    Py_ssize_t *numbers, *taken, mask, n_taken;
} CodeTable;

static int
code_table_init(CodeTable *table, Py_ssize_t pool)
{
    Py_ssize_t size = 16;
    while (size < 2 * pool)
        size <<= 1;
    table->codes = calloc((size_t)size, sizeof(uint64_t));
    table->numbers = malloc(sizeof(Py_ssize_t) * (size_t)size);
    table->taken = malloc(sizeof(Py_ssize_t) * (size_t)size);
    table->mask = size - 1;
    table->n_taken = 0;
    return table->codes && table->numbers && table->taken ? 0 : -1;
}

static void
code_table_free(CodeTable *table)
{
    free(table->codes);
    free(table->numbers);
    free(table->taken);
}

/* The pattern number of code (a new one, count, if it is new: then *is_new is 1). */
static inline Py_ssize_t
code_number(CodeTable *table, uint64_t code, Py_ssize_t count, int *is_new)
{
    uint64_t hash = code * UINT64_C(0x9E3779B97F4A7C15);
    Py_ssize_t at = (Py_ssize_t)(hash >> 32) & table->mask;
    while (table->codes[at] != 0) {
        if (table->codes[at] == code) {
            *is_new = 0;
            return table->numbers[at];
        }
        at = (at + 1) & table->mask;
    }
    table->codes[at] = code;
    table->numbers[at] = count;
    table->taken[table->n_taken++] = at;
    *is_new = 1;
    return count;
}

static void
code_table_clear(CodeTable *table)
{
    for (Py_ssize_t k = 0; k < table->n_taken; k++)
        table->codes[table->taken[k]] = 0;
    table->n_taken = 0;
}

/* greedy_patterns(relevant, n_topics, pool, width, n_patterns, counts, successor, next,
 * remaining): the binary relevance patterns of each topic's pool (relevant [T, P, S] uint8,
 * S <= 62), for greedy_extend, numbered in order of first appearance (at most n_patterns >= 1
 * a topic): counts[T] their number, next[T, U] each pattern's first document, successor[T * P]
 * the next document of the same pattern (pool on entry) and remaining[T] the documents
 * relevant to some subtopic. */
static PyObject *
greedy_patterns(PyObject *self, PyObject *args)
{
    Py_buffer relevant_b, counts_b, successor_b, next_b, remaining_b;
    Py_ssize_t n_topics, pool, width, n_patterns;
    if (!PyArg_ParseTuple(args, "y*nnnnw*w*w*w*", &relevant_b, &n_topics, &pool, &width,
                          &n_patterns, &counts_b, &successor_b, &next_b, &remaining_b))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t *last = NULL;
    CodeTable table = {0};
    if (check_size(&relevant_b, n_topics * pool * width, 1, "relevant") ||
        check_size(&counts_b, n_topics, 8, "counts") ||
        check_size(&successor_b, n_topics * pool, 8, "successor") ||
        check_size(&next_b, n_topics * n_patterns, 8, "next") ||
        check_size(&remaining_b, n_topics, 8, "remaining"))
        goto done;
    if (width < 1 || width > 62 || n_patterns < 1) {
        PyErr_SetString(PyExc_ValueError, "greedy_patterns: 1 to 62 subtopics, 1 pattern or more");
        goto done;
    }
    last = malloc(sizeof(Py_ssize_t) * (size_t)(pool > 0 ? pool : 1));
    if (last == NULL || code_table_init(&table, pool) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    const uint8_t *relevant = relevant_b.buf;
    int64_t *counts = counts_b.buf, *successor = successor_b.buf, *next = next_b.buf;
    int64_t *remaining = remaining_b.buf;
    int too_many = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < n_topics && !too_many; t++) {
        Py_ssize_t count = 0, useful = 0;
        for (Py_ssize_t p = 0; p < pool; p++) {
            const uint8_t *row = relevant + (t * pool + p) * width;
            uint64_t code = 0;
            for (Py_ssize_t s = 0; s < width; s++)
                code |= (uint64_t)(row[s] != 0) << s;
            if (code == 0)
                continue;
            useful++;
            int is_new;
            Py_ssize_t u = code_number(&table, code, count, &is_new);
            if (is_new) {
                count++;
                if (u >= n_patterns) {
                    too_many = 1;
                    break;
                }
                next[t * n_patterns + u] = p;
            } else {
                successor[t * pool + last[u]] = p;
            }
            last[u] = p;
        }
        code_table_clear(&table);
        counts[t] = count;
        remaining[t] = useful;
    }
    Py_END_ALLOW_THREADS
    if (too_many) {
        PyErr_SetString(PyExc_ValueError, "greedy_patterns: more patterns than n_patterns");
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    free(last);
    code_table_free(&table);
    PyBuffer_Release(&relevant_b);
    PyBuffer_Release(&counts_b);
    PyBuffer_Release(&successor_b);
    PyBuffer_Release(&next_b);
    PyBuffer_Release(&remaining_b);
    return result;
}

/* The marginal gain of a pattern with a document left: sum_s v[s] * weight[s] in ascending
 * s, plus numpy's penalty for it, 0 (which turns a -0 sum into +0). */
static inline double
pattern_gain(const double *v, const double *weight, Py_ssize_t width)
{
    double gain = v[0] * weight[0];
    for (Py_ssize_t s = 1; s < width; s++) {
        double term = v[s] * weight[s];
        gain += term;
    }
    return gain + 0.0;
}

/* pattern_gain of a binary pattern, v = 1.0 or 0.0 from a relevance row (bytes 0 or 1,
 * converted without a branch): the same products and sums as of its row of planes. */
static inline double
relevance_gain(const uint8_t *row, const double *weight, Py_ssize_t width)
{
    double gain = (double)row[0] * weight[0];
    for (Py_ssize_t s = 1; s < width; s++) {
        double term = (double)row[s] * weight[s];
        gain += term;
    }
    return gain + 0.0;
}

/* greedy_extend(next, planes, weight, remaining, built, relevant, successor,
 *               n_topics, n_patterns, width, pool, room, start, stop, decay, exact)
 *
 * next[T, U] int64: each pattern's next unplaced document (pool position; pool: none left)
 * planes[T, U, S] float64: each pattern's gain v on each subtopic, or empty: binary gains,
 *   v = the relevance of the pattern's documents (1.0 or 0.0)
 * weight[T, S] float64: the subtopics' current weights (1 - alpha)^c
 * remaining[T] int64: unplaced useful documents of each topic
 * built[T, room] float64: the ideal gains g*(rank), filled for ranks start..stop-1
 * relevant[T * pool, S] uint8, successor[T * pool] int64: per pool document, its relevance
 * and the next document of its pattern.
 *
 * Each step: gain_u = sum_s planes[u, s] * weight[s] in ascending s, plus 0 (or -inf for a
 * pattern used up); the tied patterns are those within the tolerance of the largest gain
 * (exact: equal to it); of these, the one whose next document comes first in pool order is
 * placed; the weights of the subtopics it is relevant to decay (when its gain is positive).
 *
 * The patterns with a document left are kept in a list (in any order: the largest gain and
 * the first document among the tied do not depend on it), with their gains and next
 * documents side by side, and every loop over them or the subtopics runs without branches on
 * the data (random gains and relevance mispredict most branches: summing every gain again
 * after a decay is cheaper than testing which changed). */
static PyObject *
greedy_extend(PyObject *self, PyObject *args)
{
    Py_buffer next_b, planes_b, weight_b, remaining_b, built_b, relevant_b, successor_b;
    Py_ssize_t n_topics, n_patterns, width, pool, room, start, stop;
    double decay;
    int exact;
    if (!PyArg_ParseTuple(args, "w*y*w*w*w*y*y*nnnnnnndp", &next_b, &planes_b, &weight_b,
                          &remaining_b, &built_b, &relevant_b, &successor_b,
                          &n_topics, &n_patterns, &width, &pool, &room, &start, &stop, &decay,
                          &exact))
        return NULL;
    PyObject *result = NULL;
    double *gains = NULL;
    int64_t *firsts = NULL;
    Py_ssize_t *live = NULL;
    if (check_size(&next_b, n_topics * n_patterns, 8, "next") ||
        (planes_b.len != 0 && check_size(&planes_b, n_topics * n_patterns * width, 8, "planes")) ||
        check_size(&weight_b, n_topics * width, 8, "weight") ||
        check_size(&remaining_b, n_topics, 8, "remaining") ||
        check_size(&built_b, n_topics * room, 8, "built") ||
        check_size(&relevant_b, n_topics * pool * width, 1, "relevant") ||
        check_size(&successor_b, n_topics * pool, 8, "successor"))
        goto done;
    if (width < 1 || start < 0 || stop > room || start > stop) {
        PyErr_SetString(PyExc_ValueError, "greedy_extend: bad width or ranks");
        goto done;
    }
    size_t slots = (size_t)(n_patterns > 0 ? n_patterns : 1);
    gains = malloc(sizeof(double) * slots);
    firsts = malloc(sizeof(int64_t) * slots);
    live = malloc(sizeof(Py_ssize_t) * slots);
    if (gains == NULL || firsts == NULL || live == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *next_all = next_b.buf, *remaining = remaining_b.buf;
    const int64_t *successor = successor_b.buf;
    const double *planes_all = planes_b.len ? planes_b.buf : NULL; /* empty: binary */
    double *weight_all = weight_b.buf, *built = built_b.buf;
    const uint8_t *relevant = relevant_b.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < n_topics; t++) {
        if (start >= stop || remaining[t] <= 0)
            continue;
        int64_t *next = next_all + t * n_patterns;
        const double *planes = planes_all ? planes_all + t * n_patterns * width : NULL;
        const uint8_t *rows = relevant + t * pool * width; /* binary: v of a pattern is the
                                                             relevance of any of its documents */
        double *weight = weight_all + t * width;
        /* the list: slot k holds pattern live[k], its gain gains[k], its next document
         * firsts[k] (a pattern used up leaves it, as its gain, -inf, can win only where every
         * gain is -inf and nothing is placed) */
        Py_ssize_t n_live = 0;
        for (Py_ssize_t u = 0; u < n_patterns; u++) {
            if (next[u] >= pool)
                continue;
            live[n_live] = u;
            firsts[n_live] = next[u];
            gains[n_live++] = planes ? pattern_gain(planes + u * width, weight, width)
                                     : relevance_gain(rows + next[u] * width, weight, width);
        }
        for (Py_ssize_t step = start; step < stop && remaining[t] > 0; step++) {
            double top = -INFINITY;
            int64_t first = INT64_MAX;
            Py_ssize_t slot = -1;
            int nan = 0;
            if (exact) { /* the largest gain and the first document among its ties, at once */
                for (Py_ssize_t k = 0; k < n_live; k++) {
                    double gain = gains[k];
                    int above = gain > top;
                    int better = above | ((gain == top) & (firsts[k] < first));
                    first = better ? firsts[k] : first;
                    slot = better ? k : slot;
                    top = above ? gain : top;
                    nan |= gain != gain;
                }
            } else {
                for (Py_ssize_t k = 0; k < n_live; k++) {
                    double gain = gains[k];
                    top = gain > top ? gain : top;
                    nan |= gain != gain;
                }
                double floor = top - 1e-12 * fabs(top);
                for (Py_ssize_t k = 0; k < n_live; k++) {
                    int better = (gains[k] >= floor) & (firsts[k] < first);
                    first = better ? firsts[k] : first;
                    slot = better ? k : slot;
                }
            }
            /* nothing placeable (np.max is NaN and no gain is >= NaN, or no pattern is left):
             * every later step is the same */
            if (nan || slot < 0)
                break;
            Py_ssize_t doc = t * pool + (Py_ssize_t)first;
            double best = exact ? top : gains[slot];
            built[t * room + step] = best > 0.0 ? best : 0.0;
            firsts[slot] = next[live[slot]] = successor[doc];
            if (firsts[slot] >= pool) {
                n_live--;
                live[slot] = live[n_live];
                firsts[slot] = firsts[n_live];
                gains[slot] = gains[n_live];
            }
            remaining[t] -= 1;
            if (!(best > 0.0))
                continue;
            const uint8_t *hit = relevant + doc * width;
            for (Py_ssize_t s = 0; s < width; s++) { /* without branches on the data */
                double decayed = weight[s] * decay;
                weight[s] = hit[s] ? decayed : weight[s];
            }
            for (Py_ssize_t k = 0; k < n_live; k++)
                gains[k] = planes ? pattern_gain(planes + live[k] * width, weight, width)
                                  : relevance_gain(rows + firsts[k] * width, weight, width);
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    free(gains);
    free(firsts);
    free(live);
    PyBuffer_Release(&next_b);
    PyBuffer_Release(&planes_b);
    PyBuffer_Release(&weight_b);
    PyBuffer_Release(&remaining_b);
    PyBuffer_Release(&built_b);
    PyBuffer_Release(&relevant_b);
    PyBuffer_Release(&successor_b);
    return result;
}

/* gather_words(buffer, starts, lengths, out, n_tokens, n_words): token i, the bytes
 * buffer[starts[i] : starts[i] + lengths[i]], as little-endian 8-byte words in row i of out
 * (zero-padded; out is zeros on entry), lengths of at most 8 * n_words. The buffer must be
 * readable to the end of every token's last word (divaeval.io._words._PAD bytes past it): each
 * word is one 8-byte load, the bytes past the token masked off. */
static PyObject *
gather_words(PyObject *self, PyObject *args)
{
    Py_buffer buffer_b, starts_b, lengths_b, out_b;
    Py_ssize_t n, n_words;
    if (!PyArg_ParseTuple(args, "y*y*y*w*nn", &buffer_b, &starts_b, &lengths_b, &out_b, &n,
                          &n_words))
        return NULL;
    PyObject *result = NULL;
    if (check_size(&starts_b, n, 8, "starts") || check_size(&lengths_b, n, 8, "lengths") ||
        check_size(&out_b, n * n_words, 8, "out"))
        goto done;
    const uint8_t *buffer = buffer_b.buf;
    const int64_t *starts = starts_b.buf, *lengths = lengths_b.buf;
    uint64_t *out = out_b.buf;
    const int64_t size = (int64_t)buffer_b.len;
    int outside = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t start = starts[i], left = lengths[i];
        if (start < 0 || left < 0 || left > 8 * n_words || start + (left + 7) / 8 * 8 > size) {
            outside = 1;
            break;
        }
        const uint8_t *token = buffer + start;
        uint64_t *row = out + i * n_words;
        for (; left > 0; left -= 8, token += 8, row++) {
            uint64_t word;
            memcpy(&word, token, 8);
            word = LITTLE_ENDIAN_WORD(word);
            *row = left >= 8 ? word : word & ((UINT64_C(1) << (8 * left)) - 1);
        }
    }
    Py_END_ALLOW_THREADS
    if (outside) {
        PyErr_SetString(PyExc_ValueError, "gather_words: a token's words outside the buffer");
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&buffer_b);
    PyBuffer_Release(&starts_b);
    PyBuffer_Release(&lengths_b);
    PyBuffer_Release(&out_b);
    return result;
}

/* The bytes of a one-word token (at most 8; the token holds no NUL, its padding is zeros). */
static inline int
word_bytes(uint64_t word, uint8_t bytes[8])
{
    int length = 0;
    for (; length < 8; length++) {
        bytes[length] = (uint8_t)(word >> (8 * length));
        if (bytes[length] == 0)
            break;
    }
    return length;
}

/* A one-word token [+-]?[0-9]+ as its int64 value in *value; whether it is one (else 0). */
static inline int
integer_token(uint64_t word, int64_t *value)
{
    uint8_t bytes[8];
    int length = word_bytes(word, bytes);
    int at = (length && (bytes[0] == '-' || bytes[0] == '+')) ? 1 : 0;
    int ok = length > at;
    int64_t number = 0;
    for (int k = at; k < length && ok; k++) {
        if (bytes[k] < '0' || bytes[k] > '9')
            ok = 0;
        number = number * 10 + (bytes[k] - '0');
    }
    *value = ok ? (at && bytes[0] == '-' ? -number : number) : 0;
    return ok;
}

static const double powers_of_ten[9] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};

/* The token of `length` bytes (0 to 8) in the low bytes of word (the others zero), if it is
 * [+-]?[0-9]*[.]?[0-9]* with a digit, as m / 10^k in *value (m its digits as an integer, k those
 * after the dot: Clinger's fast path, correctly rounded; "-0" is -0.0); whether it is one.
 * Without a branch on the bytes (as divaeval.io._numbers._parse_short_decimals reads them): a
 * sign dropped, the first "." found by a zero-byte test (exact for the lowest) and cut out,
 * the digits moved to the top bytes under ASCII "0"s, checked and combined pairwise. */
static inline int
decimal_word(uint64_t word, int length, double *value)
{
    const uint64_t low = UINT64_C(0x0101010101010101), high = UINT64_C(0x8080808080808080);
    uint64_t first = word & 0xFF;
    int negative = first == '-';
    int sign = negative | (first == '+');
    uint64_t body = word >> (8 * sign);
    int n = length - sign;
    uint64_t x = body ^ UINT64_C(0x2E2E2E2E2E2E2E2E); /* (padding bytes become 0x2E, not 0) */
    uint64_t dots = (x - low) & ~x & high;
    int has_dot = dots != 0;
    int dot_at = has_dot ? lowest_bit(dots) >> 3 : 8;
    uint64_t before = dot_at >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * dot_at)) - 1;
    uint64_t digits = (body & before) | ((body >> 8) & ~before);
    int n_digits = n - has_dot;
    int after = has_dot ? n_digits - dot_at : 0;
    /* "0"s in the low 8 - n_digits bytes, the digits above them */
    uint64_t padded = n_digits <= 0   ? UINT64_C(0x3030303030303030)
                      : n_digits >= 8 ? digits
                                      : (digits << (8 * (8 - n_digits))) |
                                            (UINT64_C(0x3030303030303030) >> (8 * n_digits));
    const uint64_t nibbles = UINT64_C(0xF0F0F0F0F0F0F0F0);
    int ok = n_digits > 0 && ((padded & nibbles) |
                              (((padded + UINT64_C(0x0606060606060606)) & nibbles) >> 4)) ==
                                 UINT64_C(0x3333333333333333);
    uint64_t m = padded & UINT64_C(0x0F0F0F0F0F0F0F0F);
    m = (m * 2561) >> 8;
    m = ((m & UINT64_C(0x00FF00FF00FF00FF)) * 6553601) >> 16;
    m = ((m & UINT64_C(0x0000FFFF0000FFFF)) * UINT64_C(42949672960001)) >> 32;
    double number = ok ? (double)m / powers_of_ten[after < 0 ? 0 : after] : 0.0;
    *value = negative ? -number : number;
    return ok;
}

/* decimal_word of a one-word token (its bytes up to the first zero byte). */
static inline int
decimal_token(uint64_t word, double *value)
{
    const uint64_t low = UINT64_C(0x0101010101010101), high = UINT64_C(0x8080808080808080);
    uint64_t zeros = (word - low) & ~word & high; /* (exact for the lowest zero byte) */
    int length = zeros ? lowest_bit(zeros) >> 3 : 8;
    uint64_t kept = length == 8 ? word : word & ((UINT64_C(1) << (8 * length)) - 1);
    return decimal_word(kept, length, value);
}

/* parse_short_integers / parse_short_decimals(words, values, fine, n): each one-word token
 * read by integer_token or decimal_token into values (int64 or float64), fine[i] whether it
 * is one. */
static PyObject *
parse_words(PyObject *args, int decimals)
{
    Py_buffer words_b, values_b, fine_b;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*w*w*n", &words_b, &values_b, &fine_b, &n))
        return NULL;
    PyObject *result = NULL;
    if (check_size(&words_b, n, 8, "words") || check_size(&values_b, n, 8, "values") ||
        check_size(&fine_b, n, 1, "fine"))
        goto done;
    const uint64_t *words = words_b.buf;
    uint8_t *fine = fine_b.buf;
    Py_BEGIN_ALLOW_THREADS
    if (decimals) {
        double *values = values_b.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            fine[i] = (uint8_t)decimal_token(words[i], values + i);
    } else {
        int64_t *values = values_b.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            fine[i] = (uint8_t)integer_token(words[i], values + i);
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&words_b);
    PyBuffer_Release(&values_b);
    PyBuffer_Release(&fine_b);
    return result;
}

static PyObject *
parse_short_integers(PyObject *self, PyObject *args)
{
    return parse_words(args, 0);
}

static PyObject *
parse_short_decimals(PyObject *self, PyObject *args)
{
    return parse_words(args, 1);
}

/* line_ends(data): the bytes data with every "\r\n" and every lone "\r" made "\n"
 * (divaeval.io._text.normalize_line_ends): each "\r" becomes "\n", and a "\n" right after a
 * "\r" is dropped; a line at a time (memchr finds the next "\r"). */
static PyObject *
line_ends(PyObject *self, PyObject *arg)
{
    Py_buffer data_b;
    if (PyObject_GetBuffer(arg, &data_b, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, data_b.len);
    if (!out) {
        PyBuffer_Release(&data_b);
        return NULL;
    }
    const uint8_t *data = data_b.buf;
    uint8_t *written = (uint8_t *)PyBytes_AS_STRING(out);
    const Py_ssize_t n = data_b.len;
    Py_ssize_t i = 0, k = 0;
    while (i < n) {
        const uint8_t *cr = memchr(data + i, '\r', (size_t)(n - i));
        Py_ssize_t stop = cr ? cr - data : n;
        memcpy(written + k, data + i, (size_t)(stop - i));
        k += stop - i;
        if (!cr)
            break;
        written[k++] = '\n';
        i = stop + 1 + (stop + 1 < n && data[stop + 1] == '\n');
    }
    PyBuffer_Release(&data_b);
    if (_PyBytes_Resize(&out, k) < 0)
        return NULL;
    return out;
}

/* count_lines(text, n): the newlines in text[:n] (bytes.count searches for each instead). */
static PyObject *
count_lines(PyObject *self, PyObject *args)
{
    Py_buffer text_b;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*n", &text_b, &n))
        return NULL;
    if (n < 0 || n > text_b.len) {
        PyBuffer_Release(&text_b);
        PyErr_SetString(PyExc_ValueError, "count_lines: n outside the text");
        return NULL;
    }
    const uint8_t *text = text_b.buf;
    const uint64_t low7 = UINT64_C(0x7F7F7F7F7F7F7F7F);
    Py_ssize_t count = 0, i = 0;
    for (; i + 8 <= n; i += 8) { /* eight at a time: the high bit of each zero byte of
                                   * word ^ "\n\n...", exactly, summed by a multiply */
        uint64_t word;
        memcpy(&word, text + i, 8);
        word ^= UINT64_C(0x0A0A0A0A0A0A0A0A);
        uint64_t zero = ~(((word & low7) + low7) | word | low7);
        count += (Py_ssize_t)(((zero >> 7) * UINT64_C(0x0101010101010101)) >> 56);
    }
    for (; i < n; i++)
        count += text[i] == '\n';
    PyBuffer_Release(&text_b);
    return PyLong_FromSsize_t(count);
}

/* grid_spans(text, n, delimiter, n_fields, starts, lengths, n_rows): whether text[:n] is a
 * grid of n_rows lines of n_fields non-empty fields, each followed by the delimiter, the last
 * by a newline, with no other byte below 33 (divaeval.io._tokens._grid_spans); if so, the
 * start and length of every field, as [n_fields, n_rows] arrays (a field's rows together). */
static PyObject *
grid_spans(PyObject *self, PyObject *args)
{
    Py_buffer text_b, starts_b, lengths_b;
    Py_ssize_t n, n_fields, n_rows;
    int delimiter;
    if (!PyArg_ParseTuple(args, "y*ninw*w*n", &text_b, &n, &delimiter, &n_fields, &starts_b,
                          &lengths_b, &n_rows))
        return NULL;
    PyObject *result = NULL;
    if (check_size(&starts_b, n_rows * n_fields, 8, "starts") ||
        check_size(&lengths_b, n_rows * n_fields, 8, "lengths"))
        goto done;
    if (n > text_b.len || n_fields < 1) {
        PyErr_SetString(PyExc_ValueError, "grid_spans: bad text length or field count");
        goto done;
    }
    if (text_b.len < n + 8) {
        PyErr_SetString(PyExc_ValueError, "grid_spans: the text needs 8 bytes of padding");
        goto done;
    }
    const uint8_t *text = text_b.buf;
    int64_t *starts = starts_b.buf, *lengths = lengths_b.buf;
    const Py_ssize_t total = n_rows * n_fields;
    const uint64_t high = UINT64_C(0x8080808080808080);
    Py_ssize_t k = 0, column = 0, row = 0, from = 0;
    int grid = 1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; grid && i < n; i += 8) {
        uint64_t word;
        memcpy(&word, text + i, 8);
        word = LITTLE_ENDIAN_WORD(word);
        /* the high bit of each byte below 33, exactly: (b | 0x80) - 33 keeps its high bit
         * only where b & 0x7f >= 33, and no byte borrows from the next */
        uint64_t below = ~((word | high) - UINT64_C(0x2121212121212121)) & ~word & high;
        if (n - i < 8)
            below &= (UINT64_C(1) << (8 * (n - i))) - 1; /* (the padding is not text) */
        while (below) {
            Py_ssize_t at = i + (lowest_bit(below) >> 3);
            below &= below - 1;
            int expected = column == n_fields - 1 ? '\n' : delimiter;
            if (k == total || text[at] != expected || at == from) { /* (at == from: empty) */
                grid = 0;
                break;
            }
            starts[column * n_rows + row] = from; /* field by field */
            lengths[column * n_rows + row] = at - from;
            k++;
            from = at + 1;
            if (column == n_fields - 1) {
                column = 0;
                row++;
            } else {
                column++;
            }
        }
    }
    Py_END_ALLOW_THREADS
    result = PyBool_FromLong(grid && k == total && from == n);
done:
    PyBuffer_Release(&text_b);
    PyBuffer_Release(&starts_b);
    PyBuffer_Release(&lengths_b);
    return result;
}

/* Row `row` of a word matrix of `width` words: token text[from : from + length] (length at most
 * 8 * width, text readable 8 bytes past it), little-endian, zero-padded: as gather_words. */
static inline void
put_words(uint64_t *out, const uint8_t *token, Py_ssize_t length, Py_ssize_t width)
{
    Py_ssize_t k = 0;
    for (; length > 0; length -= 8, token += 8, k++) {
        uint64_t word;
        memcpy(&word, token, 8);
        word = LITTLE_ENDIAN_WORD(word);
        out[k] = length >= 8 ? word : word & ((UINT64_C(1) << (8 * length)) - 1);
    }
    for (; k < width; k++)
        out[k] = 0;
}

/* A gathered field's word matrix, [rows, width] words in a bytearray (room for `rows`, grown
 * as rows come), widened as longer tokens come (its rows so far moved to the wider stride). */
typedef struct {
    PyObject *array;
    Py_ssize_t width;
} WordColumn;

static int
widen(WordColumn *column, Py_ssize_t room, Py_ssize_t rows_done, Py_ssize_t width)
{
    if (PyByteArray_Resize(column->array, room * width * 8) < 0)
        return -1;
    uint64_t *words = (uint64_t *)PyByteArray_AS_STRING(column->array);
    for (Py_ssize_t row = rows_done - 1; row >= 0; row--) { /* (backwards: rows move up) */
        memmove(words + row * width, words + row * column->width, 8 * column->width);
        memset(words + row * width + column->width, 0, 8 * (width - column->width));
    }
    column->width = width;
    return 0;
}

/* separators_64(text): bit b set where byte text[b] is below 33, for the 64 bytes from text.
 * SSE2 (every x86-64): a byte x is at most 32 where min(x, 32) == x, unsigned; sixteen bytes'
 * tests gathered into 16 bits by a movemask. Elsewhere eight words' high bits of the bytes
 * below 33 (exactly, see grid_spans), gathered into 8 bits by a multiply (byte k's bit lands
 * on bit 56 + k). */
static inline uint64_t
separators_64(const uint8_t *text)
{
#if defined(__SSE2__)
    const __m128i most = _mm_set1_epi8(32);
    uint64_t below = 0;
    for (int q = 0; q < 4; q++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(text + 16 * q));
        uint64_t bits = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, most), x));
        below |= bits << (16 * q);
    }
    return below;
#else
    const uint64_t high = UINT64_C(0x8080808080808080);
    uint64_t below = 0;
    for (int w = 0; w < 8; w++) {
        uint64_t word;
        memcpy(&word, text + 8 * w, 8);
        word = LITTLE_ENDIAN_WORD(word);
        uint64_t bytes = ~((word | high) - UINT64_C(0x2121212121212121)) & ~word & high;
        below |= (((bytes >> 7) * UINT64_C(0x0102040810204080)) >> 56) << (8 * w);
    }
    return below;
#endif
}

/* grid_words(text, n, delimiter, n_fields, rows_guess, gathered, widths, number, long_bytes):
 * grid_spans's check of text[:n] (lines of n_fields non-empty fields, no other byte below 33;
 * text readable 64 bytes past n), fused with what is done with the fields, in one pass with no
 * count of the lines first (room for rows_guess rows, grown as needed): the fields `gathered`
 * (a tuple of field numbers) become word matrices as gather_words makes them, starting `widths`
 * words wide (a tuple: at least 1 each, at most the width of the widest token), and the field
 * `number` (-1: none) is read by decimal_word where its token is one word.
 * Returns None where the text is not such a grid, False where a gathered token is long (more
 * than long_bytes: the spans' path marks it), else (n_rows, matrices, values, rest, commented):
 * a bytearray of [n_rows, W] words for each gathered field (W: the words of its longest token),
 * the number field's values (n_rows doubles; 0 where not read), the (row, start, length) of
 * the tokens not read (int64 triples), as bytearrays, and whether a line starts with "#". */
static PyObject *
grid_words(PyObject *self, PyObject *args)
{
    Py_buffer text_b;
    Py_ssize_t n, n_fields, room, number, long_bytes;
    int delimiter;
    PyObject *gathered, *widths;
    if (!PyArg_ParseTuple(args, "y*ninnO!O!nn", &text_b, &n, &delimiter, &n_fields, &room,
                          &PyTuple_Type, &gathered, &PyTuple_Type, &widths, &number,
                          &long_bytes))
        return NULL;
    PyObject *result = NULL, *values_array = NULL, *rest_array = NULL;
    Py_ssize_t n_gathered = PyTuple_GET_SIZE(gathered);
    WordColumn *columns = NULL;
    Py_ssize_t *slot = NULL; /* slot[j]: field j's column, or -1 */
    if (n < 0 || n > text_b.len || n_fields < 1 || room < 1 ||
        PyTuple_GET_SIZE(widths) != n_gathered || number >= n_fields || long_bytes < 1) {
        PyErr_SetString(PyExc_ValueError, "grid_words: bad arguments");
        goto done;
    }
    if (text_b.len < n + 64) {
        PyErr_SetString(PyExc_ValueError, "grid_words: the text needs 64 bytes of padding");
        goto done;
    }
    columns = calloc((size_t)(n_gathered ? n_gathered : 1), sizeof(WordColumn));
    slot = malloc(sizeof(Py_ssize_t) * (size_t)n_fields);
    Py_ssize_t rest_room = 64;
    values_array = PyByteArray_FromStringAndSize(NULL, number >= 0 ? room * 8 : 0);
    rest_array = PyByteArray_FromStringAndSize(NULL, rest_room * 24);
    if (!columns || !slot || !values_array || !rest_array) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < n_fields; j++)
        slot[j] = -1;
    for (Py_ssize_t s = 0; s < n_gathered; s++) {
        Py_ssize_t field = PyLong_AsSsize_t(PyTuple_GET_ITEM(gathered, s));
        Py_ssize_t width = PyLong_AsSsize_t(PyTuple_GET_ITEM(widths, s));
        if (PyErr_Occurred())
            goto done;
        if (field < 0 || field >= n_fields || slot[field] >= 0 || width < 1 ||
            width > (long_bytes + 7) / 8) {
            PyErr_SetString(PyExc_ValueError, "grid_words: bad gathered field or width");
            goto done;
        }
        slot[field] = s;
        columns[s].width = width;
        columns[s].array = PyByteArray_FromStringAndSize(NULL, room * width * 8);
        if (!columns[s].array)
            goto done;
    }
    const uint8_t *text = text_b.buf;
    Py_ssize_t column = 0, row = 0, from = 0, n_rest = 0;
    int grid = 1, long_token = 0, commented = 0; /* commented: a line starts with "#" */
    /* (the GIL is held: the arrays grow as Python objects) */
    for (Py_ssize_t i = 0; grid && i < n; i += 64) { /* 64 bytes at a time: one loop over
                                                       * their separators, one exit to guess */
        uint64_t below = separators_64(text + i); /* bit b: byte i + b is below 33 */
        if (n - i < 64)
            below &= (UINT64_C(1) << (n - i)) - 1; /* (the padding is not text) */
        while (below) {
            Py_ssize_t at = i + lowest_bit(below);
            below &= below - 1;
            int expected = column == n_fields - 1 ? '\n' : delimiter;
            if (text[at] != expected || at == from) { /* (at == from: empty) */
                grid = 0;
                break;
            }
            if (column == 0) { /* a row begins */
                commented |= text[from] == '#';
                if (row == room) { /* a row more than there is room for */
                    room += room / 2 + 64;
                    for (Py_ssize_t s = 0; s < n_gathered; s++)
                        if (PyByteArray_Resize(columns[s].array, room * columns[s].width * 8) <
                            0)
                            goto done;
                    if (number >= 0 && PyByteArray_Resize(values_array, room * 8) < 0)
                        goto done;
                }
            }
            Py_ssize_t length = at - from, s = slot[column];
            if (s >= 0) {
                if (length > long_bytes) {
                    long_token = 1;
                    grid = 0;
                    break;
                }
                WordColumn *words = columns + s;
                Py_ssize_t width = (length + 7) / 8;
                if (width > words->width && widen(words, room, row, width) < 0)
                    goto done;
                put_words((uint64_t *)PyByteArray_AS_STRING(words->array) + row * words->width,
                          text + from, length, words->width);
            }
            if (column == number) {
                double *values = (double *)PyByteArray_AS_STRING(values_array);
                uint64_t value = 0;
                if (length <= 8) {
                    memcpy(&value, text + from, 8);
                    value = LITTLE_ENDIAN_WORD(value);
                    if (length < 8)
                        value &= (UINT64_C(1) << (8 * length)) - 1;
                }
                if (!(length <= 8 && decimal_word(value, (int)length, values + row))) {
                    values[row] = 0.0;
                    if (n_rest == rest_room) {
                        rest_room *= 2;
                        if (PyByteArray_Resize(rest_array, rest_room * 24) < 0)
                            goto done;
                    }
                    int64_t *rest = (int64_t *)PyByteArray_AS_STRING(rest_array) + 3 * n_rest;
                    rest[0] = row;
                    rest[1] = from;
                    rest[2] = length;
                    n_rest++;
                }
            }
            from = at + 1;
            if (column == n_fields - 1) {
                column = 0;
                row++;
            } else {
                column++;
            }
        }
    }
    if (long_token) {
        result = Py_NewRef(Py_False);
    } else if (!(grid && column == 0 && from == n && row)) { /* (ending with a newline) */
        result = Py_NewRef(Py_None);
    } else {
        PyObject *matrices = PyTuple_New(n_gathered);
        if (!matrices)
            goto done;
        for (Py_ssize_t s = 0; s < n_gathered; s++) {
            PyTuple_SET_ITEM(matrices, s, columns[s].array); /* (the tuple owns it now) */
            columns[s].array = NULL;
            if (PyByteArray_Resize(PyTuple_GET_ITEM(matrices, s), row * columns[s].width * 8) <
                0) {
                Py_DECREF(matrices);
                goto done;
            }
        }
        if (PyByteArray_Resize(values_array, number >= 0 ? row * 8 : 0) < 0 ||
            PyByteArray_Resize(rest_array, n_rest * 24) < 0) {
            Py_DECREF(matrices);
            goto done;
        }
        result = Py_BuildValue("nNOOO", row, matrices, values_array, rest_array,
                               commented ? Py_True : Py_False);
    }
done:
    if (columns)
        for (Py_ssize_t s = 0; s < n_gathered; s++)
            Py_XDECREF(columns[s].array);
    Py_XDECREF(values_array);
    Py_XDECREF(rest_array);
    free(columns);
    free(slot);
    PyBuffer_Release(&text_b);
    return result;
}

/* novelty_gains(relevant, values, decay, out, n_topics, length, width): the novelty-biased
 * gains g(r) = sum_i v(d_r, i) * (1 - alpha)^{c_i(r)} of divaeval.metrics.novelty.novelty_gains,
 * c_i(r) the earlier documents relevant to i; relevant [T, K, S] uint8, values [T, K, S] float64
 * or None (v = 1), decay[c] = (1 - alpha)^c (K + 1 of them), out [T, K] (zeros on entry).
 * Summed in ascending i from 0, as numpy adds each subtopic's plane. */
static PyObject *
novelty_gains(PyObject *self, PyObject *args)
{
    Py_buffer relevant_b, decay_b, out_b, values_b = {0};
    PyObject *values_object;
    Py_ssize_t n_topics, length, width;
    if (!PyArg_ParseTuple(args, "y*Oy*w*nnn", &relevant_b, &values_object, &decay_b, &out_b,
                          &n_topics, &length, &width))
        return NULL;
    PyObject *result = NULL;
    int64_t *counts = NULL;
    int has_values = values_object != Py_None;
    if (has_values && PyObject_GetBuffer(values_object, &values_b, PyBUF_SIMPLE) < 0)
        goto done;
    if (check_size(&relevant_b, n_topics * length * width, 1, "relevant") ||
        (has_values && check_size(&values_b, n_topics * length * width, 8, "values")) ||
        check_size(&decay_b, length + 1, 8, "decay") ||
        check_size(&out_b, n_topics * length, 8, "out"))
        goto done;
    counts = malloc(sizeof(int64_t) * (size_t)(width > 0 ? width : 1));
    if (counts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const uint8_t *relevant = relevant_b.buf;
    const double *values = has_values ? values_b.buf : NULL, *decay = decay_b.buf;
    double *out = out_b.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < n_topics; t++) {
        memset(counts, 0, sizeof(int64_t) * (size_t)width);
        for (Py_ssize_t k = 0; k < length; k++) {
            Py_ssize_t cell = (t * length + k) * width;
            double gain = out[t * length + k];
            for (Py_ssize_t s = 0; s < width; s++) {
                double term = relevant[cell + s] ? decay[counts[s]] : 0.0;
                if (has_values)
                    term = term * values[cell + s];
                gain += term;
                counts[s] += relevant[cell + s] != 0;
            }
            out[t * length + k] = gain;
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    free(counts);
    PyBuffer_Release(&relevant_b);
    if (has_values && values_b.obj != NULL)
        PyBuffer_Release(&values_b);
    PyBuffer_Release(&decay_b);
    PyBuffer_Release(&out_b);
    return result;
}

/* ---- Ranking a run's rows (divaeval.judged.judge) ---- */

/* The docno of a row compared in byte order: words byte-swapped, column by column. */
typedef struct {
    const int64_t *doc;      /* doc code of each row */
    const uint64_t *words;   /* [D, W] the docnos' words */
    Py_ssize_t width;
    int ascending;           /* docnos ascending (score-docno-asc), else descending */
} DocOrder;

static inline int
compare_docnos(const DocOrder *order, int64_t a, int64_t b)
{
    const uint64_t *x = order->words + order->doc[a] * order->width;
    const uint64_t *y = order->words + order->doc[b] * order->width;
    for (Py_ssize_t j = 0; j < order->width; j++) {
        uint64_t u = SWAP_BYTES(x[j]), v = SWAP_BYTES(y[j]);
        if (u != v)
            return (u < v) == order->ascending ? -1 : 1;
    }
    return 0;
}

/* A stable merge sort of rows[0:n] by docno (equal docnos keep their order). */
static void
sort_by_docno(const DocOrder *order, int64_t *rows, int64_t *scratch, Py_ssize_t n)
{
    for (Py_ssize_t width = 1; width < n; width *= 2) {
        for (Py_ssize_t left = 0; left < n - width; left += 2 * width) {
            Py_ssize_t middle = left + width, right = middle + width < n ? middle + width : n;
            Py_ssize_t i = left, j = middle, k = 0;
            while (i < middle && j < right)
                scratch[k++] = compare_docnos(order, rows[j], rows[i]) < 0 ? rows[j++] : rows[i++];
            while (i < middle)
                scratch[k++] = rows[i++];
            while (j < right)
                scratch[k++] = rows[j++];
            memcpy(rows + left, scratch, sizeof(int64_t) * (size_t)k);
        }
    }
}

/* score_order(topic, score, doc, words, n, n_docs, width, ascending, perm) -> int: the
 * ranking order of a run's rows that are already grouped by ascending topic code with scores
 * not increasing within each topic (the usual run file), as divaeval.judged.judge._order_rows
 * orders them: each group of rows of equal topic and score sorted by docno, descending
 * (ascending with `ascending`), equal docnos in row order. 1: the rows are in that order as
 * they stand (no ties; perm is not written); 2: perm holds the order (ties sorted); 0: any
 * other run, or a tie holding a long token (whose bytes are not in its words): the caller
 * sorts. */
static PyObject *
score_order(PyObject *self, PyObject *args)
{
    Py_buffer topic_b, score_b, doc_b, words_b, perm_b;
    Py_ssize_t n, n_docs, width;
    int ascending;
    if (!PyArg_ParseTuple(args, "y*y*y*y*nnnpw*", &topic_b, &score_b, &doc_b, &words_b, &n,
                          &n_docs, &width, &ascending, &perm_b))
        return NULL;
    PyObject *result = NULL;
    int64_t *scratch = NULL;
    if (check_size(&topic_b, n, 8, "topic") || check_size(&score_b, n, 8, "score") ||
        check_size(&doc_b, n, 8, "doc") || check_size(&words_b, n_docs * width, 8, "words") ||
        check_size(&perm_b, n, 8, "perm"))
        goto done;
    const int64_t *topic = topic_b.buf, *doc = doc_b.buf;
    const double *score = score_b.buf;
    const uint64_t *words = words_b.buf;
    int64_t *perm = perm_b.buf;
    int answer = 1, outside = 0;
    Py_ssize_t longest_tie = 1, tie = 1;
    for (Py_ssize_t i = 1; i < n; i++) {
        if (topic[i] < topic[i - 1] || (topic[i] == topic[i - 1] && score[i] > score[i - 1])) {
            answer = 0;
            break;
        }
        tie = topic[i] == topic[i - 1] && score[i] == score[i - 1] ? tie + 1 : 1;
        if (tie > 1) { /* rows i - 1 and i tie: their docnos are compared */
            for (Py_ssize_t r = i - (tie == 2); r <= i; r++) {
                if (doc[r] < 0 || doc[r] >= n_docs || width < 1) {
                    outside = 1;
                    break;
                }
                uint64_t first = words[doc[r] * width];
                if (first != 0 && (first & 0xFF) == 0)
                    answer = 0; /* a long token's marker */
            }
            if (outside || !answer)
                break;
            if (tie > longest_tie)
                longest_tie = tie;
        }
    }
    if (outside) {
        PyErr_SetString(PyExc_ValueError, "score_order: a doc code outside the words");
        goto done;
    }
    if (answer && longest_tie > 1) {
        answer = 2;
        scratch = malloc(sizeof(int64_t) * (size_t)longest_tie);
        if (scratch == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        DocOrder order = {doc, words, width, ascending};
        for (Py_ssize_t i = 0; i < n; i++)
            perm[i] = i;
        for (Py_ssize_t begin = 0; begin < n;) {
            Py_ssize_t end = begin + 1;
            while (end < n && topic[end] == topic[end - 1] && score[end] == score[end - 1])
                end++;
            if (end - begin > 1)
                sort_by_docno(&order, perm + begin, scratch, end - begin);
            begin = end;
        }
    }
    result = PyLong_FromLong(answer);
done:
    free(scratch);
    PyBuffer_Release(&topic_b);
    PyBuffer_Release(&score_b);
    PyBuffer_Release(&doc_b);
    PyBuffer_Release(&words_b);
    PyBuffer_Release(&perm_b);
    return result;
}

/* rank_positions(topic, doc, n, n_docs, drop_repeats, repeated, position) -> repeats: for
 * rows in ranking order, grouped by topic (each topic's rows together), repeated[i] = 1 where
 * row i's (topic, doc) occurred on an earlier row (a stamp per docno: the last topic it was
 * seen in), and position[i] its 0-based rank within its topic, counting every row, or with
 * drop_repeats only the first copies (a repeat's position is then -1); the number of
 * repeats. divaeval.judged.judge._positions_and_repeats computes the same with numpy. */
static PyObject *
rank_positions(PyObject *self, PyObject *args)
{
    Py_buffer topic_b, doc_b, repeated_b, position_b;
    Py_ssize_t n, n_docs;
    int drop_repeats;
    if (!PyArg_ParseTuple(args, "y*y*nnpw*w*", &topic_b, &doc_b, &n, &n_docs, &drop_repeats,
                          &repeated_b, &position_b))
        return NULL;
    PyObject *result = NULL;
    int64_t *stamp = NULL;
    if (check_size(&topic_b, n, 8, "topic") || check_size(&doc_b, n, 8, "doc") ||
        check_size(&repeated_b, n, 1, "repeated") || check_size(&position_b, n, 8, "position"))
        goto done;
    stamp = malloc(sizeof(int64_t) * (size_t)(n_docs > 0 ? n_docs : 1));
    if (stamp == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *topic = topic_b.buf, *doc = doc_b.buf;
    uint8_t *repeated = repeated_b.buf;
    int64_t *position = position_b.buf;
    Py_ssize_t repeats = 0;
    int64_t next = 0; /* the position of the topic's next row */
    int outside = 0;
    for (Py_ssize_t d = 0; d < n_docs; d++)
        stamp[d] = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t d = doc[i];
        if (d < 0 || d >= n_docs || topic[i] < 0) {
            outside = 1;
            break;
        }
        if (i == 0 || topic[i] != topic[i - 1])
            next = 0;
        uint8_t again = stamp[d] == topic[i];
        stamp[d] = topic[i];
        repeated[i] = again;
        repeats += again;
        position[i] = again && drop_repeats ? -1 : next++;
    }
    if (outside) {
        PyErr_SetString(PyExc_ValueError, "rank_positions: a code outside its range");
        goto done;
    }
    result = PyLong_FromSsize_t(repeats);
done:
    free(stamp);
    PyBuffer_Release(&topic_b);
    PyBuffer_Release(&doc_b);
    PyBuffer_Release(&repeated_b);
    PyBuffer_Release(&position_b);
    return result;
}

/* ---- Printing numbers (divaeval.report.numbers) ---- */

/* n = rint(x 10^P) (scale = 10^P) where n is printf's correctly rounded "%.Pf" of x: where
 * |x 10^P| < 2^52 and either |x 10^P - n| < 1/2 - ulp, so that the product's rounding error
 * cannot have moved it across a half, or the product is exact (fma: no remainder), a half
 * then rounded to even as printf rounds an exact tie; 0 for any other x (a near half of an
 * inexact product, a huge or non-finite value). */
static inline int
exact_scaled(double x, double scale, uint64_t *number)
{
    double scaled = x * scale, rounded = rint(scaled), size = fabs(scaled);
    double ulp = nextafter(size, INFINITY) - size;
    if (!(size < 4503599627370496.0 &&
          (fabs(scaled - rounded) < 0.5 - ulp || fma(x, scale, -scaled) == 0.0)))
        return 0;
    *number = (uint64_t)fabs(rounded);
    return 1;
}

/* number / unit in digits, then (precision > 0) the point and the precision digits of
 * number % unit (unit = 10^precision), written at at; returns the end. */
static inline char *
write_decimal(char *at, uint64_t number, uint64_t unit, int precision)
{
    uint64_t whole = number / unit, fraction = number % unit;
    char digits[20];
    int count = 0;
    do {
        digits[count++] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    while (count)
        *at++ = digits[--count];
    if (precision > 0) {
        *at++ = '.';
        for (int k = precision - 1; k >= 0; k--) {
            at[k] = (char)('0' + fraction % 10);
            fraction /= 10;
        }
        at += precision;
    }
    return at;
}

/* fixed_cells(values, n_rows, n_columns, precision, separator, fallback) -> bytes: each row of
 * the [R, C] float64 values as C's "%.Pf" cells joined by separator, ended by a newline, as
 * divaeval.report.numbers.fixed_rows writes them with numpy: n = rint(x 10^P) written as
 * digits where exact_scaled vouches for it (and also for an exact half, which numpy leaves
 * to printf); a row with any other value (a near half, a huge or non-finite value) is
 * left empty and flagged in fallback [R] for the caller's printf. 1 <= P <= 9. */
static PyObject *
fixed_cells(PyObject *self, PyObject *args)
{
    Py_buffer values_b, fallback_b;
    Py_ssize_t n_rows, n_columns;
    int precision;
    char separator;
    if (!PyArg_ParseTuple(args, "y*nnicw*", &values_b, &n_rows, &n_columns, &precision,
                          &separator, &fallback_b))
        return NULL;
    PyObject *text = NULL;
    if (check_size(&values_b, n_rows * n_columns, 8, "values") ||
        check_size(&fallback_b, n_rows, 1, "fallback"))
        goto done;
    if (precision < 1 || precision > 9) {
        PyErr_SetString(PyExc_ValueError, "fixed_cells: precision outside 1 to 9");
        goto done;
    }
    /* a cell: a sign, at most 17 digits, the point, the separator (or the newline) */
    const Py_ssize_t cell_bytes = 20 + precision;
    text = PyBytes_FromStringAndSize(NULL, n_rows * n_columns * cell_bytes + n_rows);
    if (text == NULL)
        goto done;
    char *out = PyBytes_AS_STRING(text), *at = out;
    const double *values = values_b.buf;
    uint8_t *fallback = fallback_b.buf;
    double scale = 1.0;
    uint64_t unit = 1;
    for (int k = 0; k < precision; k++) {
        scale *= 10.0;
        unit *= 10;
    }
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        char *row_start = at;
        fallback[r] = 0;
        for (Py_ssize_t c = 0; c < n_columns; c++) {
            double x = values[r * n_columns + c];
            uint64_t number;
            if (!exact_scaled(x, scale, &number)) {
                fallback[r] = 1;
                break;
            }
            if (signbit(x))
                *at++ = '-';
            at = write_decimal(at, number, unit, precision);
            *at++ = c + 1 < n_columns ? separator : '\n';
        }
        if (fallback[r]) {
            at = row_start;
            *at++ = '\n';
        }
    }
    _PyBytes_Resize(&text, at - out);
done:
    PyBuffer_Release(&values_b);
    PyBuffer_Release(&fallback_b);
    return text;
}
/* ---- Keys numbered by a hash table (divaeval.io._words.unique_inverse) ---- */

/* few_uniques(keys, ids, uniques, first, n, cap): the distinct uint64 keys numbered as they
 * first appear, by open addressing over a power-of-two table at least twice cap: ids[i] the
 * number of keys[i], uniques[u] and first[u] number u's key and its first row. Returns how
 * many there are, or -1 as soon as there are more than cap (the caller sorts instead). */
static PyObject *
few_uniques(PyObject *self, PyObject *args)
{
    Py_buffer keys_b, ids_b, uniques_b, first_b;
    Py_ssize_t n, cap;
    if (!PyArg_ParseTuple(args, "y*w*w*w*nn", &keys_b, &ids_b, &uniques_b, &first_b, &n, &cap))
        return NULL;
    PyObject *result = NULL;
    int64_t *slots = NULL;
    if (check_size(&keys_b, n, 8, "keys") || check_size(&ids_b, n, 8, "ids") ||
        check_size(&uniques_b, cap, 8, "uniques") || check_size(&first_b, cap, 8, "first"))
        goto done;
    int bits = 4;
    while (((Py_ssize_t)1 << bits) < 2 * cap)
        bits++;
    Py_ssize_t size = (Py_ssize_t)1 << bits, mask = size - 1;
    slots = malloc(sizeof(int64_t) * (size_t)size);
    if (slots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memset(slots, 0xFF, sizeof(int64_t) * (size_t)size); /* -1: a free slot */
    const uint64_t *keys = keys_b.buf;
    uint64_t *uniques = uniques_b.buf;
    int64_t *ids = ids_b.buf, *first = first_b.buf;
    Py_ssize_t count = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t key = keys[i];
        Py_ssize_t at = (Py_ssize_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
        int64_t number;
        while ((number = slots[at]) >= 0 && uniques[number] != key)
            at = (at + 1) & mask;
        if (number < 0) {
            if (count == cap) {
                count = -1;
                break;
            }
            number = slots[at] = count;
            uniques[count] = key;
            first[count++] = i;
        }
        ids[i] = number;
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromSsize_t(count);
done:
    free(slots);
    PyBuffer_Release(&keys_b);
    PyBuffer_Release(&ids_b);
    PyBuffer_Release(&uniques_b);
    PyBuffer_Release(&first_b);
    return result;
}

/* renumber(codes, rank, n, m): codes[i] = rank[codes[i]] in place (numpy's rank[codes]
 * makes a new array of n, whose pages are faulted in); a code outside [0, m) is an error. */
static PyObject *
renumber(PyObject *self, PyObject *args)
{
    Py_buffer codes_b, rank_b;
    Py_ssize_t n, m;
    if (!PyArg_ParseTuple(args, "w*y*nn", &codes_b, &rank_b, &n, &m))
        return NULL;
    PyObject *result = NULL;
    if (check_size(&codes_b, n, 8, "codes") || check_size(&rank_b, m, 8, "rank"))
        goto done;
    int64_t *codes = codes_b.buf;
    const int64_t *rank = rank_b.buf;
    Py_ssize_t bad = -1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t code = codes[i];
        if (code < 0 || code >= m) {
            bad = i;
            break;
        }
        codes[i] = rank[code];
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0)
        PyErr_Format(PyExc_IndexError, "divaeval._native: code %zd is outside the rank", bad);
    else
        result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&codes_b);
    PyBuffer_Release(&rank_b);
    return result;
}

/* ---- end of the hash-table numbering ---- */

/* ---- Tokens as word rows numbered and found by their 64-bit hash (divaeval.io._words) ---- */

/* The hash of a row of width words (divaeval.io._words._hash, the same value): each word
 * times its position's odd multiplier, mixed (xor-shift, multiply, xor-shift), summed; a zero
 * word adds nothing, so zero padding does not change it. */
#define HASH_MULTIPLIER(j)                                                                         \
    ((UINT64_C(0x9E3779B97F4A7C15) + (uint64_t)(2 * (j)) * UINT64_C(0x632BE59BD9B4E019)) | 1)
static const uint64_t hash_multipliers[16] = {
    HASH_MULTIPLIER(0),  HASH_MULTIPLIER(1),  HASH_MULTIPLIER(2),  HASH_MULTIPLIER(3),
    HASH_MULTIPLIER(4),  HASH_MULTIPLIER(5),  HASH_MULTIPLIER(6),  HASH_MULTIPLIER(7),
    HASH_MULTIPLIER(8),  HASH_MULTIPLIER(9),  HASH_MULTIPLIER(10), HASH_MULTIPLIER(11),
    HASH_MULTIPLIER(12), HASH_MULTIPLIER(13), HASH_MULTIPLIER(14), HASH_MULTIPLIER(15),
};

static inline uint64_t
row_hash(const uint64_t *row, Py_ssize_t width)
{
    uint64_t sum = 0;
    for (Py_ssize_t j = 0; j < width; j++) {
        uint64_t z = row[j] * hash_multipliers[j & 15];
        z ^= z >> 31;
        z *= UINT64_C(0xBF58476D1CE4E5B9);
        z ^= z >> 29;
        sum += z;
    }
    return sum;
}

/* Whether row a (width_a words) and row b (width_b words) hold the same token: equal words
 * where both have one, zero words past the narrower's end. */
static inline int
same_row(const uint64_t *a, Py_ssize_t width_a, const uint64_t *b, Py_ssize_t width_b)
{
    Py_ssize_t common = width_a < width_b ? width_a : width_b;
    for (Py_ssize_t j = 0; j < common; j++)
        if (a[j] != b[j])
            return 0;
    for (Py_ssize_t j = common; j < width_a; j++)
        if (a[j] != 0)
            return 0;
    for (Py_ssize_t j = common; j < width_b; j++)
        if (b[j] != 0)
            return 0;
    return 1;
}

/* The slot bits of a table at least twice as large as items (and at least 16 slots). */
static inline int
slot_bits(Py_ssize_t items)
{
    int bits = 4;
    while (((Py_ssize_t)1 << bits) < 2 * items)
        bits++;
    return bits;
}

/* Probes this many rows ahead ask for their home slots early, so that the cache misses of
 * random slots overlap instead of waiting one by one. */
#define PREFETCH_AHEAD 16
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)(address))
#endif

/* A slot of hash_factorize's table: 0 when free, else the high 32 bits of the row's hash (its
 * tag) over (the row's number + 1), so that a probe passes the slots of other hashes without
 * reading anything else, and compares the words of a row whose tag is its hash's (not the
 * whole hashes: one cache miss less). */
#define SLOT_OF(hash, number) ((((hash) >> 32) << 32) | (uint64_t)((number) + 1))
#define SLOT_TAG(slot) ((slot) >> 32)
#define SLOT_NUMBER(slot) ((Py_ssize_t)((slot) & UINT64_C(0xFFFFFFFF)) - 1)

/* The bits of a table of size slots for n < 2^30 rows: size a power of two of at least
 * slot_bits(n) bits (and at most 2^40), else -1. */
static inline int
table_bits(Py_ssize_t size, Py_ssize_t n)
{
    if (n < 0 || n >= ((Py_ssize_t)1 << 30))
        return -1;
    for (int bits = slot_bits(n); bits <= 40; bits++)
        if (size == ((Py_ssize_t)1 << bits))
            return bits;
    return -1;
}

/* A slot of hash_slots' table (at most SMALL_TABLE_ROWS rows): 0 when free, else the high 15
 * bits of the row's hash (its tag) over (the row's number + 1) in 17 bits. A miss, the common
 * probe of a run's docno, reads only adjacent slots; a row whose tag is the probe's has its
 * words compared (not the whole hashes: one cache miss less, 0.25 ms of the 9 TREC 2012
 * runs' 3.5); and 4 bytes a slot, not 8, halve the lines of a table that every run probes,
 * mostly cold in the cache by then (3.3 -> 3.0 ms). */
#define SMALL_TABLE_ROWS 65536
#define SMALL_SLOT_OF(hash, number) ((uint32_t)(((hash) >> 49) << 17) | (uint32_t)((number) + 1))
#define SMALL_SLOT_TAG(slot) ((slot) >> 17)
#define SMALL_SLOT_NUMBER(slot) ((Py_ssize_t)((slot) & 0x1FFFF) - 1)

/* The home slot of a hash in a table of 2^bits slots (its high bits after a multiply, so that
 * hashes differing only in their low bits, as the tests' masked ones, spread too). */
#define HOME_SLOT(hash, bits) \
    ((Py_ssize_t)(((hash) * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - (bits))))

/* hash_words(words, n, width, hashes): hashes[i] = the hash of row i of words [n, width]. */
static PyObject *
hash_words(PyObject *self, PyObject *args)
{
    Py_buffer words_b, hashes_b;
    Py_ssize_t n, width;
    if (!PyArg_ParseTuple(args, "y*nnw*", &words_b, &n, &width, &hashes_b))
        return NULL;
    PyObject *result = NULL;
    if (width < 1) {
        PyErr_SetString(PyExc_ValueError, "divaeval._native: width must be at least 1");
        goto done;
    }
    if (check_size(&words_b, n * width, 8, "words") || check_size(&hashes_b, n, 8, "hashes"))
        goto done;
    const uint64_t *words = words_b.buf;
    uint64_t *hashes = hashes_b.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        hashes[i] = row_hash(words + i * width, width);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&words_b);
    PyBuffer_Release(&hashes_b);
    return result;
}

/* hash_factorize(words, n, width, mask, size, codes, first, hashes): the distinct rows of
 * words [n, width] numbered as they first appear, by open addressing over a table of size
 * slots (a power of two >= 2n) keyed by each row's hash & mask (mask: all ones, or fewer bits
 * for the tests, which then collide): codes[i] the number of row i, first[u] the first row of
 * number u and hashes[u] its hash & mask. Rows whose tags agree (SLOT_OF) are compared word
 * by word, so the numbers are exact whatever collides. Returns how many distinct rows there are. */
static PyObject *
hash_factorize(PyObject *self, PyObject *args)
{
    Py_buffer words_b, codes_b, first_b, hashes_b;
    Py_ssize_t n, width, size;
    unsigned long long mask;
    if (!PyArg_ParseTuple(args, "y*nnKnw*w*w*", &words_b, &n, &width, &mask, &size, &codes_b,
                          &first_b, &hashes_b))
        return NULL;
    PyObject *result = NULL;
    uint64_t *slots = NULL;
    int bits = table_bits(size, n);
    if (width < 1 || bits < 0) {
        PyErr_SetString(PyExc_ValueError,
                        "divaeval._native: hash_factorize needs a width >= 1, "
                        "n < 2^30 rows and a power of two >= 2n slots");
        goto done;
    }
    if (check_size(&words_b, n * width, 8, "words") || check_size(&codes_b, n, 8, "codes") ||
        check_size(&first_b, n, 8, "first") || check_size(&hashes_b, n, 8, "hashes"))
        goto done;
    Py_ssize_t slot_mask = size - 1;
    slots = calloc((size_t)size, sizeof(uint64_t)); /* 0: a free slot */
    if (slots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const uint64_t *words = words_b.buf;
    int64_t *codes = codes_b.buf, *first = first_b.buf;
    uint64_t *hashes = hashes_b.buf;
    Py_ssize_t count = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        const uint64_t *row = words + i * width;
        uint64_t hash = row_hash(row, width) & (uint64_t)mask, slot;
        Py_ssize_t at = HOME_SLOT(hash, bits), number = -1;
        while ((slot = slots[at]) != 0) {
            if (SLOT_TAG(slot) == hash >> 32) {
                number = SLOT_NUMBER(slot);
                if (same_row(words + first[number] * width, width, row, width))
                    break;
                number = -1;
            }
            at = (at + 1) & slot_mask;
        }
        if (number < 0) {
            number = count++;
            slots[at] = SLOT_OF(hash, number);
            hashes[number] = hash;
            first[number] = i;
        }
        codes[i] = number;
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromSsize_t(count);
done:
    free(slots);
    PyBuffer_Release(&words_b);
    PyBuffer_Release(&codes_b);
    PyBuffer_Release(&first_b);
    PyBuffer_Release(&hashes_b);
    return result;
}

/* hash_slots(hashes, n, slots, size): the table of rows 0..n-1 (n <= SMALL_TABLE_ROWS) by
 * their hashes, for find_rows: slots (uint32, size a power of two >= 2n: the sparser, the
 * fewer slots a probe passes) holds each row at its hash's home slot or the next free one (0:
 * free; see SMALL_SLOT_OF). Rows sharing a hash are all kept. */
static PyObject *
hash_slots(PyObject *self, PyObject *args)
{
    Py_buffer hashes_b, slots_b;
    Py_ssize_t n, size;
    if (!PyArg_ParseTuple(args, "y*nw*n", &hashes_b, &n, &slots_b, &size))
        return NULL;
    PyObject *result = NULL;
    int bits = table_bits(size, n);
    if (bits < 0) {
        PyErr_Format(PyExc_ValueError,
                     "divaeval._native: hash_slots needs a power of two >= %zd slots, not %zd",
                     (Py_ssize_t)1 << slot_bits(n), size);
        goto done;
    }
    if (n > SMALL_TABLE_ROWS) {
        PyErr_Format(PyExc_ValueError, "divaeval._native: hash_slots takes at most %d rows",
                     SMALL_TABLE_ROWS);
        goto done;
    }
    if (check_size(&hashes_b, n, 8, "hashes") || check_size(&slots_b, size, 4, "slots"))
        goto done;
    const uint64_t *hashes = hashes_b.buf;
    uint32_t *slots = slots_b.buf;
    Py_ssize_t slot_mask = size - 1;
    Py_BEGIN_ALLOW_THREADS
    memset(slots, 0, sizeof(uint32_t) * (size_t)size);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t at = HOME_SLOT(hashes[i], bits);
        while (slots[at] != 0)
            at = (at + 1) & slot_mask;
        slots[at] = SMALL_SLOT_OF(hashes[i], i);
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&hashes_b);
    PyBuffer_Release(&slots_b);
    return result;
}

/* find_rows(table, n_table, table_width, slots, size, words, n, width, hashes, found): the row
 * of the table (word rows [n_table, table_width], and hash_slots' slots of them) holding the
 * token of each row of words [n, width] (hashes: theirs, by the same function), or -1:
 * found[i]. A row whose slot's tag is the hash's is compared word by word (zero words past
 * the narrower row), so the answer is exact whatever collides; if the table holds a token
 * twice, the row found is the first of them that hash_slots placed. */
static PyObject *
find_rows(PyObject *self, PyObject *args)
{
    Py_buffer table_b, slots_b, words_b, hashes_b, found_b;
    Py_ssize_t n_table, table_width, size, n, width;
    if (!PyArg_ParseTuple(args, "y*nny*ny*nny*w*", &table_b, &n_table, &table_width, &slots_b,
                          &size, &words_b, &n, &width, &hashes_b, &found_b))
        return NULL;
    PyObject *result = NULL;
    int bits = table_bits(size, n_table);
    if (table_width < 1 || width < 1 || bits < 0) {
        PyErr_SetString(PyExc_ValueError,
                        "divaeval._native: find_rows needs widths >= 1 and hash_slots' size");
        goto done;
    }
    if (check_size(&table_b, n_table * table_width, 8, "table") ||
        check_size(&slots_b, size, 4, "slots") || check_size(&words_b, n * width, 8, "words") ||
        check_size(&hashes_b, n, 8, "hashes") || check_size(&found_b, n, 8, "found"))
        goto done;
    const uint64_t *table = table_b.buf, *words = words_b.buf, *hashes = hashes_b.buf;
    const uint32_t *slots = slots_b.buf;
    int64_t *found = found_b.buf;
    Py_ssize_t slot_mask = size - 1, bad = -1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t hash = hashes[i];
        uint32_t slot, tag = SMALL_SLOT_TAG(SMALL_SLOT_OF(hash, 0));
        Py_ssize_t at = HOME_SLOT(hash, bits), row = -1;
        if (i + PREFETCH_AHEAD < n) /* (the slot a later probe reads: misses overlap) */
            PREFETCH(slots + HOME_SLOT(hashes[i + PREFETCH_AHEAD], bits));
        while ((slot = slots[at]) != 0) {
            if (SMALL_SLOT_TAG(slot) == tag) {
                row = SMALL_SLOT_NUMBER(slot);
                if (row >= n_table) {
                    bad = i;
                    break;
                }
                if (same_row(table + row * table_width, table_width, words + i * width, width))
                    break;
                row = -1;
            }
            at = (at + 1) & slot_mask;
        }
        if (bad >= 0)
            break;
        found[i] = row;
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0)
        PyErr_SetString(PyExc_IndexError,
                        "divaeval._native: a slot names a row outside the table");
    else
        result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&table_b);
    PyBuffer_Release(&slots_b);
    PyBuffer_Release(&words_b);
    PyBuffer_Release(&hashes_b);
    PyBuffer_Release(&found_b);
    return result;
}

/* ---- end of the word rows' hash tables ---- */

/* ---- A run's ranked documents judged into [topics x ranks] cells (divaeval.judged.judge) ---- */

/* judged_cells(topic, row, position, k, row_of_code, n_codes, doc_codes, score, n, found,
 *              n_found, row_of_key, n_keys, n_docs, judged_grades, n_judged, width, depth,
 *              n_topics, scores, grades, judged, doc_rows, length)
 *
 * For each ranked document i < k (qrels topic code topic[i], the run's row row[i], its rank
 * position[i] in its topic): its cell c = row_of_code[topic[i]] * depth + position[i] of the
 * [n_topics, depth] outputs (zeros, and -1 in doc_rows, on entry) gets the row's score;
 * length[the topic's row] counts it; and where the qrels know its docno (found[doc_codes[row]]
 * = q >= 0) and judge it for the topic (j = row_of_key[topic * n_docs + q] < n_judged - 1, the
 * last row being the unjudged one), grades[c] = judged_grades[j] (width int16s), judged[c] = 1
 * and doc_rows[c] = j: numpy's scatters in judge_run, in one pass. Every index is checked. */
static PyObject *
judged_cells(PyObject *self, PyObject *args)
{
    Py_buffer topic_b, row_b, position_b, row_of_code_b, doc_codes_b, score_b, found_b,
        row_of_key_b, judged_grades_b, scores_b, grades_b, judged_b, doc_rows_b, length_b;
    Py_ssize_t k, n_codes, n, n_found, n_keys, n_docs, n_judged, width, depth, n_topics;
    if (!PyArg_ParseTuple(args, "y*y*y*ny*ny*y*ny*ny*nny*nnnnw*w*w*w*w*", &topic_b, &row_b,
                          &position_b, &k, &row_of_code_b, &n_codes, &doc_codes_b, &score_b, &n,
                          &found_b, &n_found, &row_of_key_b, &n_keys, &n_docs, &judged_grades_b,
                          &n_judged, &width, &depth, &n_topics, &scores_b, &grades_b, &judged_b,
                          &doc_rows_b, &length_b))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t cells = n_topics * depth;
    if (n_judged < 1 || width < 0 || depth < 0 || n_topics < 0 || n_docs < 1) {
        PyErr_SetString(PyExc_ValueError, "divaeval._native: judged_cells needs the unjudged "
                                          "row, n_docs >= 1 and sizes >= 0");
        goto done;
    }
    if (check_size(&topic_b, k, 8, "topic") || check_size(&row_b, k, 8, "row") ||
        check_size(&position_b, k, 8, "position") ||
        check_size(&row_of_code_b, n_codes, 8, "row_of_code") ||
        check_size(&doc_codes_b, n, 8, "doc_codes") || check_size(&score_b, n, 8, "score") ||
        check_size(&found_b, n_found, 8, "found") ||
        check_size(&row_of_key_b, n_keys, 4, "row_of_key") ||
        check_size(&judged_grades_b, n_judged * width, 2, "judged_grades") ||
        check_size(&scores_b, cells, 8, "scores") ||
        check_size(&grades_b, cells * width, 2, "grades") ||
        check_size(&judged_b, cells, 1, "judged") ||
        check_size(&doc_rows_b, cells, 8, "doc_rows") ||
        check_size(&length_b, n_topics, 8, "length"))
        goto done;
    const int64_t *topic = topic_b.buf, *row = row_b.buf, *position = position_b.buf;
    const int64_t *row_of_code = row_of_code_b.buf, *doc_codes = doc_codes_b.buf;
    const int64_t *found = found_b.buf;
    const int32_t *row_of_key = row_of_key_b.buf;
    const int16_t *judged_grades = judged_grades_b.buf;
    const double *score = score_b.buf;
    double *scores = scores_b.buf;
    int16_t *grades = grades_b.buf;
    char *judged = judged_b.buf;
    int64_t *doc_rows = doc_rows_b.buf, *length = length_b.buf;
    Py_ssize_t bad = -1, unjudged = n_judged - 1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < k; i++) {
        int64_t code = topic[i], r = row[i], p = position[i];
        if (code < 0 || code >= n_codes || r < 0 || r >= n || p < 0 || p >= depth) {
            bad = i;
            break;
        }
        int64_t t = row_of_code[code], d = doc_codes[r];
        if (t < 0 || t >= n_topics || d < 0 || d >= n_found) {
            bad = i;
            break;
        }
        Py_ssize_t cell = t * depth + p;
        scores[cell] = score[r];
        length[t]++;
        int64_t q = found[d];
        if (q < 0)
            continue;
        int64_t key = code * n_docs + q;
        if (q >= n_docs || key >= n_keys) {
            bad = i;
            break;
        }
        int64_t j = row_of_key[key];
        if (j < 0 || j > unjudged) {
            bad = i;
            break;
        }
        if (j == unjudged)
            continue;
        memcpy(grades + cell * width, judged_grades + j * width, sizeof(int16_t) * (size_t)width);
        judged[cell] = 1;
        doc_rows[cell] = j;
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0)
        PyErr_Format(PyExc_ValueError,
                     "divaeval._native: ranked document %zd has an index outside its arrays", bad);
    else
        result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&topic_b);
    PyBuffer_Release(&row_b);
    PyBuffer_Release(&position_b);
    PyBuffer_Release(&row_of_code_b);
    PyBuffer_Release(&doc_codes_b);
    PyBuffer_Release(&score_b);
    PyBuffer_Release(&found_b);
    PyBuffer_Release(&row_of_key_b);
    PyBuffer_Release(&judged_grades_b);
    PyBuffer_Release(&scores_b);
    PyBuffer_Release(&grades_b);
    PyBuffer_Release(&judged_b);
    PyBuffer_Release(&doc_rows_b);
    PyBuffer_Release(&length_b);
    return result;
}

/* ---- end of the judged cells ---- */



/* ---- The run side of ndeval's subtopic measures (divaeval.metrics.families.ndeval) ---- */

/* An optional output: a writable buffer of items doubles or int64s, or None (*wanted = 0). */
static int
optional_output(PyObject *object, Py_buffer *buffer, int *wanted, Py_ssize_t items,
                const char *name)
{
    *wanted = object != Py_None;
    if (!*wanted)
        return 0;
    if (PyObject_GetBuffer(object, buffer, PyBUF_WRITABLE) < 0)
        return -1;
    if (check_size(buffer, items, 8, name) < 0) {
        PyBuffer_Release(buffer);
        *wanted = 0;
        return -1;
    }
    return 0;
}

/* subtopic_hits(grades, level, ks, pairs, covered, precisions, n_topics, depth, width,
 *               n_cutoffs)
 *
 * grades[T, D, S] int16 (a document relevant to subtopic s: grade >= level); for each cutoff
 * ks[C] (>= 0; the first min(k, D) ranks), each output None or written whole:
 * pairs[T, C] float64: the relevant (document, subtopic) pairs among the first k ranks;
 * covered[T, C] float64: the subtopics with a relevant document among them;
 * precisions[T, S, C] float64: sum over the ranks r <= k of a document relevant to s of
 * h_s(r) / r (h_s(r): the documents relevant to s in the first r ranks), added in rank order
 * from 0 with h_s(r) / (r0 + 1.0) (r0 = r - 1) as numpy divides, the sums of MAP-IA's AP_s. */
static PyObject *
subtopic_hits(PyObject *self, PyObject *args)
{
    Py_buffer grades_b, ks_b, pairs_b = {0}, covered_b = {0}, precisions_b = {0};
    PyObject *pairs_object, *covered_object, *precisions_object;
    long long level;
    Py_ssize_t n_topics, depth, width, n_cutoffs;
    if (!PyArg_ParseTuple(args, "y*Ly*OOOnnnn", &grades_b, &level, &ks_b, &pairs_object,
                          &covered_object, &precisions_object, &n_topics, &depth, &width,
                          &n_cutoffs))
        return NULL;
    PyObject *result = NULL;
    int64_t *hits = NULL, *stops = NULL;
    double *totals = NULL;
    int want_pairs = 0, want_covered = 0, want_precisions = 0;
    if (check_size(&grades_b, n_topics * depth * width, 2, "grades") ||
        check_size(&ks_b, n_cutoffs, 8, "ks") ||
        optional_output(pairs_object, &pairs_b, &want_pairs, n_topics * n_cutoffs, "pairs") ||
        optional_output(covered_object, &covered_b, &want_covered, n_topics * n_cutoffs,
                        "covered") ||
        optional_output(precisions_object, &precisions_b, &want_precisions,
                        n_topics * width * n_cutoffs, "precisions"))
        goto done;
    hits = calloc((size_t)(width > 0 ? width : 1), sizeof(int64_t));
    totals = calloc((size_t)(width > 0 ? width : 1), sizeof(double));
    stops = malloc(sizeof(int64_t) * (size_t)(n_cutoffs > 0 ? n_cutoffs : 1));
    if (hits == NULL || totals == NULL || stops == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int16_t *grades = grades_b.buf;
    const int64_t *ks = ks_b.buf;
    double *pairs = pairs_b.buf, *covered = covered_b.buf, *precisions = precisions_b.buf;
    Py_ssize_t reach = 0; /* the ranks any cutoff needs */
    for (Py_ssize_t c = 0; c < n_cutoffs; c++) {
        if (ks[c] < 0) {
            PyErr_SetString(PyExc_ValueError, "subtopic_hits: a negative cutoff");
            goto done;
        }
        stops[c] = ks[c] < depth ? ks[c] : depth;
        reach = stops[c] > reach ? (Py_ssize_t)stops[c] : reach;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < n_topics; t++) {
        memset(hits, 0, sizeof(int64_t) * (size_t)width);
        memset(totals, 0, sizeof(double) * (size_t)width);
        int64_t n_pairs = 0, n_covered = 0;
        for (Py_ssize_t r = 0; r <= reach; r++) {
            for (Py_ssize_t c = 0; c < n_cutoffs; c++) { /* the first r ranks are counted */
                if (stops[c] != r)
                    continue;
                if (want_pairs)
                    pairs[t * n_cutoffs + c] = (double)n_pairs;
                if (want_covered)
                    covered[t * n_cutoffs + c] = (double)n_covered;
                for (Py_ssize_t s = 0; want_precisions && s < width; s++)
                    precisions[(t * width + s) * n_cutoffs + c] = totals[s];
            }
            if (r == reach)
                break;
            const int16_t *row = grades + (t * depth + r) * width;
            if (!want_precisions) { /* without branches on the grades: fewer mispredicted */
                for (Py_ssize_t s = 0; s < width; s++) {
                    int64_t relevant = (long long)row[s] >= level;
                    n_pairs += relevant;
                    n_covered += relevant & (hits[s] == 0);
                    hits[s] += relevant;
                }
                continue;
            }
            for (Py_ssize_t s = 0; s < width; s++) {
                if ((long long)row[s] < level)
                    continue;
                n_pairs++;
                n_covered += hits[s] == 0;
                hits[s]++;
                double term = (double)hits[s] / ((double)r + 1.0);
                totals[s] += term;
            }
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    free(hits);
    free(totals);
    free(stops);
    PyBuffer_Release(&grades_b);
    PyBuffer_Release(&ks_b);
    if (want_pairs)
        PyBuffer_Release(&pairs_b);
    if (want_covered)
        PyBuffer_Release(&covered_b);
    if (want_precisions)
        PyBuffer_Release(&precisions_b);
    return result;
}

/* ranked_novelty_gains(grades, level, decay, out, n_topics, depth, width): ndeval's novelty
 * gains at every rank of rankings, binary and unweighted, read from their grades:
 * grades[T, D, S] int16 (relevant to s: grade >= level), decay[c] = (1 - alpha)^c (D + 1 of
 * them), out[T, D] float64: g(r) = sum_s rel(d_r, s) * decay[c_s(r)], c_s(r) the earlier
 * documents relevant to s, added in ascending s from 0 as novelty_gains does (the terms of
 * the other subtopics are zeros, which leave a sum >= 0 as it is). */
static PyObject *
ranked_novelty_gains(PyObject *self, PyObject *args)
{
    Py_buffer grades_b, decay_b, out_b;
    long long level;
    Py_ssize_t n_topics, depth, width;
    if (!PyArg_ParseTuple(args, "y*Ly*w*nnn", &grades_b, &level, &decay_b, &out_b, &n_topics,
                          &depth, &width))
        return NULL;
    PyObject *result = NULL;
    int64_t *counts = NULL;
    if (check_size(&grades_b, n_topics * depth * width, 2, "grades") ||
        check_size(&decay_b, depth + 1, 8, "decay") ||
        check_size(&out_b, n_topics * depth, 8, "out"))
        goto done;
    counts = malloc(sizeof(int64_t) * (size_t)(width > 0 ? width : 1));
    if (counts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int16_t *grades = grades_b.buf;
    const double *decay = decay_b.buf;
    double *out = out_b.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < n_topics; t++) {
        memset(counts, 0, sizeof(int64_t) * (size_t)width);
        for (Py_ssize_t r = 0; r < depth; r++) {
            const int16_t *row = grades + (t * depth + r) * width;
            double gain = 0.0;
            for (Py_ssize_t s = 0; s < width; s++)
                if ((long long)row[s] >= level)
                    gain += decay[counts[s]++];
            out[t * depth + r] = gain;
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    free(counts);
    PyBuffer_Release(&grades_b);
    PyBuffer_Release(&decay_b);
    PyBuffer_Release(&out_b);
    return result;
}

/* running_sums_at(values, weights, divide, ks, out): the running sums of values[T, K] (a 2-D
 * float64 array whose rows are contiguous, at any row stride) times weights[K] (divided by
 * them if divide), out[T, C] = the sum of the first ks[c] terms (1 <= ks[c] <= K), added in
 * order from the first term as np.cumsum adds: at_cutoffs(np.cumsum(values * weights)). */
static PyObject *
running_sums_at(PyObject *self, PyObject *args)
{
    PyObject *values_object;
    Py_buffer values_b = {0}, weights_b, ks_b, out_b;
    int divide;
    if (!PyArg_ParseTuple(args, "Oy*py*w*", &values_object, &weights_b, &divide, &ks_b,
                          &out_b))
        return NULL;
    PyObject *result = NULL;
    int have_values = 0;
    if (PyObject_GetBuffer(values_object, &values_b, PyBUF_STRIDED_RO | PyBUF_FORMAT) < 0)
        goto done;
    have_values = 1;
    if (values_b.ndim != 2 || values_b.itemsize != 8 || strcmp(values_b.format, "d") != 0 ||
        (values_b.shape[1] > 1 && values_b.strides[1] != 8) || values_b.strides[0] % 8 != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "running_sums_at: values must be float64 [T, K] with contiguous rows");
        goto done;
    }
    Py_ssize_t n_rows = values_b.shape[0], length = values_b.shape[1];
    Py_ssize_t n_cutoffs = ks_b.len / 8, row_stride = values_b.strides[0] / 8;
    if (check_size(&weights_b, length, 8, "weights") ||
        check_size(&ks_b, n_cutoffs, 8, "ks") ||
        check_size(&out_b, n_rows * n_cutoffs, 8, "out"))
        goto done;
    const int64_t *ks = ks_b.buf;
    Py_ssize_t reach = 0;
    for (Py_ssize_t c = 0; c < n_cutoffs; c++) {
        if (ks[c] < 1 || ks[c] > length) {
            PyErr_SetString(PyExc_ValueError, "running_sums_at: a cutoff outside 1..K");
            goto done;
        }
        reach = ks[c] > reach ? (Py_ssize_t)ks[c] : reach;
    }
    const double *values = values_b.buf, *weights = weights_b.buf;
    double *out = out_b.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < n_rows; t++) {
        const double *row = values + t * row_stride;
        double running = 0.0;
        for (Py_ssize_t r = 0; r < reach; r++) {
            double term = divide ? row[r] / weights[r] : row[r] * weights[r];
            running = r ? running + term : term;
            for (Py_ssize_t c = 0; c < n_cutoffs; c++)
                if (ks[c] == r + 1)
                    out[t * n_cutoffs + c] = running;
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    if (have_values)
        PyBuffer_Release(&values_b);
    PyBuffer_Release(&weights_b);
    PyBuffer_Release(&ks_b);
    PyBuffer_Release(&out_b);
    return result;
}

/* rbp_settled_length(gains, powers, start) -> int: divaeval.metrics.novelty.GreedyIdeal.
 * rbp_length's search over a whole greedy ideal ranking: gains[T, M] float64 (rows
 * contiguous, at any row stride), powers[M + 1] = beta^r. The first L in start..M-1
 * (start >= 1) at which, for every topic, 2 * (g(L) * powers[L]) < spacing(sum_L) / 2, where
 * sum_L = the sum of g(r) * powers[r - 1] over the first L ranks added as np.cumsum adds and
 * spacing is np.spacing's (the distance to the next double away from zero; NaN for an
 * infinity); M if there is none. */
static PyObject *
rbp_settled_length(PyObject *self, PyObject *args)
{
    PyObject *gains_object;
    Py_buffer gains_b = {0}, powers_b;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "Oy*n", &gains_object, &powers_b, &start))
        return NULL;
    PyObject *result = NULL;
    int have_gains = 0;
    uint8_t *settled = NULL;
    if (PyObject_GetBuffer(gains_object, &gains_b, PyBUF_STRIDED_RO | PyBUF_FORMAT) < 0)
        goto done;
    have_gains = 1;
    if (gains_b.ndim != 2 || gains_b.itemsize != 8 || strcmp(gains_b.format, "d") != 0 ||
        (gains_b.shape[1] > 1 && gains_b.strides[1] != 8) || gains_b.strides[0] % 8 != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "rbp_settled_length: gains must be float64 [T, M] with contiguous rows");
        goto done;
    }
    Py_ssize_t n_topics = gains_b.shape[0], steps = gains_b.shape[1];
    Py_ssize_t row_stride = gains_b.strides[0] / 8;
    if (check_size(&powers_b, steps + 1, 8, "powers"))
        goto done;
    if (start < 1) {
        PyErr_SetString(PyExc_ValueError, "rbp_settled_length: start below 1");
        goto done;
    }
    if (start >= steps) {
        result = PyLong_FromSsize_t(start > steps ? start : steps);
        goto done;
    }
    settled = malloc((size_t)steps);
    if (settled == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memset(settled, 1, (size_t)steps);
    const double *gains = gains_b.buf, *powers = powers_b.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < n_topics; t++) {
        const double *row = gains + t * row_stride;
        double total = 0.0;
        for (Py_ssize_t length = 1; length < steps; length++) {
            double term = row[length - 1] * powers[length - 1];
            total = length > 1 ? total + term : term;
            if (length < start)
                continue;
            double bound = 2.0 * (row[length - 1] * powers[length]);
            double spacing = isinf(total) ? NAN
                                          : nextafter(total, copysign(INFINITY, total)) - total;
            settled[length] &= bound < spacing / 2;
        }
    }
    Py_END_ALLOW_THREADS
    Py_ssize_t length = start;
    while (length < steps && !settled[length])
        length++;
    result = PyLong_FromSsize_t(length);
done:
    free(settled);
    if (have_gains)
        PyBuffer_Release(&gains_b);
    PyBuffer_Release(&powers_b);
    return result;
}

/* unfilled_bytearray(n): a bytearray of n bytes left as malloc gives them (bytearray(n) writes
 * zeros over them): the buffer divaeval.io._text reads a file into, whose pages are then first
 * touched by the read itself, and only as far as the file goes. */
static PyObject *
unfilled_bytearray(PyObject *self, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "negative size");
        return NULL;
    }
    return PyByteArray_FromStringAndSize(NULL, n);
}

/* ---- trec_eval's per-topic lines (divaeval.report.trec_eval) ---- */

/* The length of an ASCII str, or -1 for anything else. */
static inline Py_ssize_t
ascii_length(PyObject *text)
{
    return PyUnicode_Check(text) && PyUnicode_IS_ASCII(text) ? PyUnicode_GET_LENGTH(text) : -1;
}

/* The sum of the lengths of a list's strs, or -1 if one is not an ASCII str. */
static Py_ssize_t
ascii_lengths(PyObject *list)
{
    Py_ssize_t total = 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(list); k++) {
        Py_ssize_t length = ascii_length(PyList_GET_ITEM(list, k));
        if (length < 0)
            return -1;
        total += length;
    }
    return total;
}

/* Copies an ASCII str's characters to at; returns the end. */
static inline char *
copy_ascii(char *at, PyObject *text)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    memcpy(at, PyUnicode_1BYTE_DATA(text), (size_t)length);
    return at + length;
}

/* trec_lines(values, n_measures, n_topics, heads, topics, integer, precision, end) -> str or
 * None: trec_eval's per-topic block, topic by topic (in the order of topics), measure by
 * measure: heads[m] (the padded name and its tab), topics[t], a tab, the value
 * values[m, t] ([M, T] float64) and end; as divaeval.report.trec_eval._column_lines prints
 * it: a count (integer[m]) as its integer (Python's round: half to even), another value as
 * C's "%.Pf" (0 <= P <= 15) by exact_scaled's digits, right-aligned in P + 2 characters
 * (Python's "%W.Pf" where the measure has a value in (-1, 0] with its sign set, or P is 0;
 * "%.Pf" of a finite value is never narrower else), a value that prints as zero unsigned
 * (as divaeval.report.numbers.fixed prints one in (-1, 0]: no other prints as zero). None
 * (for Python's printf) if a value is not vouched for (a near half of an inexact product, a
 * huge or non-finite value) or a string is not ASCII. */
static PyObject *
trec_lines(PyObject *self, PyObject *args)
{
    Py_buffer values_b, integer_b;
    Py_ssize_t n_measures, n_topics;
    PyObject *heads, *topics, *end, *text = NULL;
    int precision;
    if (!PyArg_ParseTuple(args, "y*nnO!O!y*iU", &values_b, &n_measures, &n_topics,
                          &PyList_Type, &heads, &PyList_Type, &topics, &integer_b, &precision,
                          &end))
        return NULL;
    if (check_size(&values_b, n_measures * n_topics, 8, "values") ||
        check_size(&integer_b, n_measures, 1, "integer"))
        goto done;
    if (PyList_GET_SIZE(heads) != n_measures || PyList_GET_SIZE(topics) != n_topics) {
        PyErr_SetString(PyExc_ValueError, "trec_lines: heads or topics of the wrong length");
        goto done;
    }
    if (precision < 0 || precision > 15) {
        PyErr_SetString(PyExc_ValueError, "trec_lines: precision outside 0 to 15");
        goto done;
    }
    Py_ssize_t heads_length = ascii_lengths(heads), topics_length = ascii_lengths(topics);
    Py_ssize_t end_length = ascii_length(end);
    if (heads_length < 0 || topics_length < 0 || end_length < 0) {
        text = Py_NewRef(Py_None);
        goto done;
    }
    /* a cell: a sign, at most 17 digits (2^52 has 16), the point, the decimals */
    Py_ssize_t cell_bytes = 20 + precision;
    text = PyUnicode_New(heads_length * n_topics + (topics_length + 1) * n_measures +
                             (cell_bytes + end_length) * n_measures * n_topics,
                         127);
    if (text == NULL)
        goto done;
    char *out = (char *)PyUnicode_1BYTE_DATA(text), *at = out;
    const double *values = values_b.buf;
    const uint8_t *integer = integer_b.buf;
    double scale = 1.0;
    uint64_t unit = 1;
    for (int k = 0; k < precision; k++) {
        scale *= 10.0;
        unit *= 10;
    }
    const int width = precision + 2;
    for (Py_ssize_t t = 0; t < n_topics; t++) {
        PyObject *topic = PyList_GET_ITEM(topics, t);
        for (Py_ssize_t m = 0; m < n_measures; m++) {
            double x = values[m * n_topics + t];
            at = copy_ascii(at, PyList_GET_ITEM(heads, m));
            at = copy_ascii(at, topic);
            *at++ = '\t';
            if (integer[m]) { /* trec_eval's %ld; Python's round() is rint's half to even */
                if (!(fabs(x) < 9007199254740992.0))
                    goto unvouched;
                at += sprintf(at, "%lld", (long long)rint(x));
            } else {
                uint64_t number;
                if (!exact_scaled(x, scale, &number))
                    goto unvouched;
                char *cell = at;
                if (signbit(x) && number != 0)
                    *at++ = '-';
                at = write_decimal(at, number, unit, precision);
                Py_ssize_t length = at - cell;
                if (length < width) {
                    memmove(cell + (width - length), cell, (size_t)length);
                    memset(cell, ' ', (size_t)(width - length));
                    at = cell + width;
                }
            }
            at = copy_ascii(at, end);
        }
    }
    if (PyUnicode_Resize(&text, at - out) < 0)
        text = NULL;
    goto done;
unvouched:
    Py_SETREF(text, Py_NewRef(Py_None));
done:
    PyBuffer_Release(&values_b);
    PyBuffer_Release(&integer_b);
    return text;
}

static PyMethodDef methods[] = {
    {"greedy_patterns", greedy_patterns, METH_VARARGS,
     "The binary relevance patterns of each topic's pool, for greedy_extend."},
    {"greedy_extend", greedy_extend, METH_VARARGS,
     "Extend ndeval's greedy ideal ranking from rank start to stop (see the source)."},
    {"gather_words", gather_words, METH_VARARGS, "Tokens as rows of little-endian words."},
    {"novelty_gains", novelty_gains, METH_VARARGS, "Novelty-biased gains of rankings."},
    {"count_lines", count_lines, METH_VARARGS, "The newlines of a text."},
    {"line_ends", line_ends, METH_O, "Bytes with every \\r\\n and lone \\r made \\n."},
    {"grid_spans", grid_spans, METH_VARARGS, "The fields of a plain grid of lines."},
    {"grid_words", grid_words, METH_VARARGS,
     "The fields of a plain grid of lines as word matrices, and a number field read."},
    {"parse_short_integers", parse_short_integers, METH_VARARGS,
     "One-word tokens [+-]?[0-9]+ as int64 values."},
    {"parse_short_decimals", parse_short_decimals, METH_VARARGS,
     "One-word plain decimals as doubles, correctly rounded."},
    {"score_order", score_order, METH_VARARGS,
     "The ranking order of a run's rows grouped by topic and sorted by score, ties by docno."},
    {"rank_positions", rank_positions, METH_VARARGS,
     "Repeated (topic, doc) rows and each row's rank within its topic, for grouped rows."},
    {"fixed_cells", fixed_cells, METH_VARARGS,
     "Rows of floats as C's %.Pf cells joined by a separator (some rows left to printf)."},
    {"few_uniques", few_uniques, METH_VARARGS,
     "Distinct keys numbered as they first appear, or -1 past a cap."},
    {"renumber", renumber, METH_VARARGS, "codes[i] = rank[codes[i]], in place."},
    {"judged_cells", judged_cells, METH_VARARGS,
     "A run's ranked documents' scores and judgments scattered into [topics x ranks] cells."},
    {"hash_words", hash_words, METH_VARARGS, "The 64-bit hash of each row of a word matrix."},
    {"hash_factorize", hash_factorize, METH_VARARGS,
     "The distinct rows of a word matrix numbered as they first appear, by their hashes."},
    {"hash_slots", hash_slots, METH_VARARGS, "A table of rows by their hashes, for find_rows."},
    {"find_rows", find_rows, METH_VARARGS,
     "The table row holding each row of a word matrix, or -1, by their hashes."},
    {"subtopic_hits", subtopic_hits, METH_VARARGS,
     "Relevant pairs, covered subtopics and precision sums of rankings at cutoffs."},
    {"ranked_novelty_gains", ranked_novelty_gains, METH_VARARGS,
     "Binary novelty-biased gains at every rank of rankings, from their grades."},
    {"running_sums_at", running_sums_at, METH_VARARGS,
     "Running sums of weighted values at cutoffs, added as np.cumsum adds."},
    {"rbp_settled_length", rbp_settled_length, METH_VARARGS,
     "The first length past which a greedy ideal's RBP sums no longer change."},
    {"unfilled_bytearray", unfilled_bytearray, METH_O,
     "A bytearray of n bytes not written (as malloc leaves them)."},
    {"trec_lines", trec_lines, METH_VARARGS,
     "trec_eval's per-topic lines of a run, or None where printf must print a value."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "divaeval._native",
    "Compiled loops of divaeval (optional: numpy computes the same numbers without them).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__native(void)
{
    return PyModule_Create(&module);
}
