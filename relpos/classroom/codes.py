"""Join codes, teacher credentials and student tokens.

:func:`make_code` draws from :data:`CODE_ALPHABET` (no 0/O, 1/I/L); :func:`normalise_code`
reads what a student typed (case and spaces do not matter). :func:`new_credential` makes a
random secret of which only the hash (:func:`credential_hash`) is stored;
:func:`credential_matches` compares hashes in constant time. :func:`join_link` is the link a
student opens.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from relpos.classroom.errors import InputError
from relpos.classroom.validation import shown

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "MAX_SECRET",
    "credential_hash",
    "credential_matches",
    "join_link",
    "make_code",
    "new_credential",
    "new_token",
    "normalise_code",
    "secret_shaped",
]

#: Code characters: capitals and digits that cannot be misread (no 0/O, 1/I/L).
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
#: Length of a new code (31⁶ ≈ 9 × 10⁸ codes); typed codes may be 4 to 8 characters.
CODE_LENGTH = 6
MIN_CODE_LENGTH, MAX_CODE_LENGTH = 4, 8
#: Longest credential or token a store even hashes (a real one is 32 or 22 characters).
MAX_SECRET = 128

_SECRET = re.compile(r"[A-Za-z0-9_-]+")


def make_code(rng=None, length: int = CODE_LENGTH) -> str:
    """A join code of `length` characters of :data:`CODE_ALPHABET`.

    Parameters
    ----------
    rng : random.Random or secrets.SystemRandom, optional
        Anything with ``choice``; the operating system's randomness by default.
    length : int
        4 to 8.

    Examples
    --------
    >>> import random
    >>> make_code(random.Random(1)) == make_code(random.Random(1)), len(make_code(length=4))
    (True, 4)
    """
    if not MIN_CODE_LENGTH <= length <= MAX_CODE_LENGTH:
        raise ValueError(f"a code has {MIN_CODE_LENGTH} to {MAX_CODE_LENGTH} characters; got {length}")
    rng = rng or secrets.SystemRandom()
    return "".join(rng.choice(CODE_ALPHABET) for _ in range(length))


def normalise_code(text) -> str:
    """A typed or linked code as stored: capitals, spaces and dashes dropped.

    >>> normalise_code(" ab-c 234 ")
    'ABC234'
    """
    if not isinstance(text, str):
        raise InputError("Type the class code shown on the projector.")
    code = re.sub(r"[\s-]", "", text[: 4 * MAX_CODE_LENGTH]).upper()
    if not code:
        raise InputError("Type the class code shown on the projector.")
    if not MIN_CODE_LENGTH <= len(code) <= MAX_CODE_LENGTH or any(char not in CODE_ALPHABET for char in code):
        raise InputError(
            f"{shown(code, 12)!r} is not a class code: a code has {MIN_CODE_LENGTH} to {MAX_CODE_LENGTH} "
            "characters, capital letters and digits 2–9, never 0, O, 1, I or L."
        )
    return code


def new_credential() -> str:
    """A fresh teacher credential: 32 URL-safe characters from the operating system's randomness."""
    return secrets.token_urlsafe(24)


def new_token() -> str:
    """A fresh student token (22 URL-safe characters)."""
    return secrets.token_urlsafe(16)


def credential_hash(code: str, credential: str) -> str:
    """The stored form of a teacher credential, bound to its class.

    A credential is 192 random bits, so a plain SHA-256 is as strong as a slow hash here; the
    code is mixed in so one class's credential never opens another.
    """
    return hashlib.sha256(f"relpos-classroom\0{code}\0{credential}".encode()).hexdigest()


def credential_matches(code: str, credential, stored_hash: str) -> bool:
    """Whether `credential` is the one `stored_hash` was made from (constant-time comparison).

    >>> secret = new_credential()
    >>> credential_matches("ABCD", secret, credential_hash("ABCD", secret)), credential_matches("ABCD", None, "")
    (True, False)
    """
    if not secret_shaped(credential):
        return False
    return hmac.compare_digest(credential_hash(code, credential), stored_hash)


def secret_shaped(text) -> bool:
    """Whether `text` could be a credential or token at all (URL-safe, 1 to 128 characters);
    anything else is refused before it reaches a hash or a database.

    >>> secret_shaped(new_token()), secret_shaped("<b>"), secret_shaped("x" * 200)
    (True, False, False)
    """
    return isinstance(text, str) and len(text) <= MAX_SECRET and _SECRET.fullmatch(text) is not None


def join_link(base_url: str, code: str) -> str:
    """The link a student opens: `base_url` with ``class=CODE`` added to its query.

    >>> join_link("https://relpos.example/walkthrough?n=3", "ABC234")
    'https://relpos.example/walkthrough?n=3&class=ABC234'
    """
    return _with_query(base_url, {"class": code})


def _with_query(base_url: str, extra: dict[str, str]) -> str:
    parts = urlsplit(base_url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in extra]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode([*query, *extra.items()]), parts.fragment))
