"""Short names of topology specs for table rows, legends and file names."""


def short_label(spec: str) -> str:
    """``tree:k=8,kp=4,n=4`` → ``8:4,4`` (the thin-tree paper's notation); other specs as given."""
    family, _, body = spec.partition(":")
    if family == "tree":
        params = dict(item.split("=", 1) for item in body.replace(" ", "").split(",") if "=" in item)
        if {"k", "n"} <= params.keys():
            return f"{params['k']}:{params.get('kp', params['k'])},{params['n']}"
    return spec
