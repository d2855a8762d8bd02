"""The built-in studies reproducing the papers, the benchmark studies and the validation against published values."""
