"""The math: NumPy only, pure functions, arrays in, new arrays out.

offsets (``j − i``, clipping, placing per-offset values on the grid), attention
(scores, biases, softmax, ``relative_attention``), checks (argument
validation), examples (the textbook scenario), measures (numbers the captions quote),
scalar_bias (one number per offset), schemes (sinusoidal, T5, ALiBi, RoPE), skewing
(Music Transformer's trick), value_side (Shaw's a^V), and the tiny trainer (training,
training_model, training_tasks, training_eval).

May import: numpy and other ``relpos.core`` modules; nothing else of relpos. Importing
it loads no pandas, Plotly or Streamlit (``tests/test_layers.py`` checks).
"""
