"""HTML reports of study output folders, their figures and tables, the landing page and topology comparisons."""
