"""The state kit: one codec for URLs and scenario files (codec, with its field specs in
field), keys built in one place (keys) and scenario files (export). Each topic declares its own schema with it
(``relpos/topics/<topic>/schema.py``).

No Streamlit. May import: numpy, ``relpos.text`` and ``relpos.core``.
"""
