"""The table kit: pandas frames of the numbers the pages show (screen-reader tables, CSV downloads).

No Streamlit, no Plotly. May import: numpy, pandas, ``relpos.state``, ``relpos.text`` and ``relpos.core``.
"""
