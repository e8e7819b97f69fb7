"""The text floor: pure text helpers every layer may use (folding, stop words, stemming, key
words, the language of a text, summaries). It imports nothing else of zettelgraph, so the
store, search, the guards and the experiment tools read text by one set of rules without
importing each other (tests/unit/test_layering.py holds it to that)."""
