"""pandas frames of the numbers the pages show (screen-reader tables, CSV downloads).

No Streamlit, no Plotly. May import: numpy, pandas, ``relpos.core``, ``relpos.lessons``,
``relpos.text`` and ``relpos.state``.
"""
