"""What the browser downloads, made light: every answer compressed once and cached as long as it may be.

* :mod:`~relpos.static.weight`: the page weight middleware: Streamlit's frontend files (its
  static folder) answered compressed, from a disk cache filled at install, and every other
  complete answer compressed once;
* :mod:`~relpos.static.compression`: the compressed variants of a body, each made once and kept
  in memory and on disk, and which one a browser gets;
* :mod:`~relpos.static.static_folder`: a folder of static files as served (content type, cache
  policy, files served changed), and its variants written at install;
* :mod:`~relpos.static.plotly_trim`: Streamlit's Plotly chunk with only the plotly.js the app draws with;
* :mod:`~relpos.static.icon_font`: Streamlit's icon font with only the icons a page can show.
"""
