"""Word error rate, and the text normalisation both engines are scored with.

Two views of every transcript, so a difference in *writing* is not counted as
a difference in *hearing*, and the reader can see how much that matters:

- ``raw``: lower case, accents folded, punctuation dropped. Folding is needed
  on both sides because the Spanish references (asterisk prompts) mostly drop
  accents ("numero", "contrasena") while Whisper writes them.
- ``norm``: ``raw`` plus numbers written as words and a few abbreviations
  spelled out. Whisper writes "10 of clubs" where the reference says "ten of
  clubs", and the asterisk references mix "press 1" and "presione uno".

Standard library only: this runs under any Python 3.
"""

import re
import unicodedata

_EN_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
             "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()

# Accents already folded: these are compared after fold().
_ES_UNITS = ("cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce "
             "quince dieciseis diecisiete dieciocho diecinueve veinte veintiuno veintidos "
             "veintitres veinticuatro veinticinco veintiseis veintisiete veintiocho "
             "veintinueve").split()
_ES_TENS = "_ _ veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa".split()
_ES_HUNDREDS = ("_ ciento doscientos trescientos cuatrocientos quinientos seiscientos "
                "setecientos ochocientos novecientos").split()

# Spoken forms of written abbreviations, either side (keys are already folded).
_ABBREVIATIONS = {
    "en": {"mr": "mister", "mrs": "missus", "dr": "doctor", "ok": "okay"},
    "es": {"sr": "senor", "sra": "senora", "dr": "doctor", "ok": "okey"},
}


def _en_words(n):
    if n < 20:
        return _EN_UNITS[n]
    if n < 100:
        return _EN_TENS[n // 10] + ("" if n % 10 == 0 else " " + _EN_UNITS[n % 10])
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand"), (100, "hundred")):
        if n >= size:
            rest = n % size
            return f"{_en_words(n // size)} {name}" + ("" if rest == 0 else " " + _en_words(rest))
    raise AssertionError(n)


def _es_words(n):
    if n < 30:
        return _ES_UNITS[n]
    if n < 100:
        return _ES_TENS[n // 10] + ("" if n % 10 == 0 else " y " + _ES_UNITS[n % 10])
    if n < 1000:
        if n == 100:
            return "cien"
        rest = n % 100
        return _ES_HUNDREDS[n // 100] + ("" if rest == 0 else " " + _es_words(rest))
    if n < 10**6:
        head = "mil" if n // 1000 == 1 else _es_words(n // 1000) + " mil"
        rest = n % 1000
        return head + ("" if rest == 0 else " " + _es_words(rest))
    millions = n // 10**6
    head = "un millon" if millions == 1 else _es_words(millions) + " millones"
    rest = n % 10**6
    return head + ("" if rest == 0 else " " + _es_words(rest))


def fold(text):
    """Lower case without accents: "Contraseña" and "contrasena" are one word."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text, language="en", numbers=True):
    """The word list scored. numbers=False is the ``raw`` view."""
    t = fold(text)
    t = re.sub(r"['’`]", "", t)  # "don't" = "dont", not "don t"
    if numbers:
        # Digit groups ("1,000" in English, "1.000" in Spanish), then percent.
        t = re.sub(r"(?<=\d)[,.](?=\d{3}\b)", "", t)
        t = t.replace("%", " por ciento " if language == "es" else " percent ")
        speak = _es_words if language == "es" else _en_words
        t = re.sub(r"\d+", lambda m: f" {speak(int(m.group()))} " if len(m.group()) <= 12 else m.group(), t)
    out = re.sub(r"[^\w]+|_", " ", t).split()
    if numbers:
        table = _ABBREVIATIONS.get(language, {})
        out = [w for word in out for w in table.get(word, word).split()]
    return out


def edits(ref, hyp):
    """Word-level Levenshtein distance (substitutions + deletions + insertions)."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h))
        prev = cur
    return prev[-1]


def _self_test():
    assert words("Mr. John's 10 of Clubs!") == "mister johns ten of clubs".split()
    assert words("Mr. John's 10 of Clubs!", numbers=False) == "mr johns 10 of clubs".split()
    assert words("Contraseña: 21, ¿sí?", "es") == "contrasena veintiuno si".split()
    assert words("1.500 y 101", "es") == "mil quinientos y ciento uno".split()
    assert words("1,000,005 call-forward") == "one million five call forward".split()
    assert _es_words(45) == "cuarenta y cinco" and _en_words(345) == "three hundred forty five"
    assert edits("a b c d".split(), "a x c".split()) == 2
    assert edits([], "a b".split()) == 2 and edits("a b".split(), []) == 2


if __name__ == "__main__":
    _self_test()
    print("text.py: self-test passed")
