"""The join link's QR code, drawn here as an SVG string (segno; no service, no CDN).

Dark modules on a white background with a four-module quiet zone, so a phone reads it off
a projector whatever the page's theme. Error correction ``M`` (15 %) survives a projector's
glare and keystone.
"""

from __future__ import annotations

import io

import segno

from relpos.classroom.errors import InputError

__all__ = ["MAX_LINK", "qr_svg"]

#: Longest link drawn (a join link is about 60 characters; a QR code of 1,000 is still readable).
MAX_LINK = 1000


def qr_svg(link: str, *, scale: int = 8, title: str = "QR code of the join link") -> str:
    """`link` as a QR code: one ``<svg>`` element, to show inline (e.g. ``st.html`` or ``st.image``).

    Parameters
    ----------
    link : str
        What a phone opens (the join link; never the teacher link).
    scale : int
        Pixels per module.
    title : str
        The SVG's ``<title>``, read by screen readers.

    Examples
    --------
    >>> svg = qr_svg("https://relpos.example/?class=ABC234")
    >>> svg.startswith("<svg") and svg.endswith("</svg>")
    True
    """
    if not isinstance(link, str) or not 0 < len(link) <= MAX_LINK:
        raise InputError(f"A QR code is drawn for a link of 1 to {MAX_LINK} characters.")
    code = segno.make(link, error="m", micro=False)
    out = io.BytesIO()
    code.save(out, kind="svg", scale=scale, border=4, dark="#000", light="#fff", xmldecl=False, title=title, nl=False)
    return out.getvalue().decode("utf-8")
