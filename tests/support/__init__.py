"""What the tests share (and bench/ may use): the browser, the protocol client, AppTest
helpers, plain-loop references, the hostile corpus, hypothesis strategies and the page contracts."""
