"""One module per exercise set: its exercises (stubs, docstrings) and public tests."""
