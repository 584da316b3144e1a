"""Inline code that is only a PyTorch API's name, or a call of it, links to the PyTorch reference.

`torch.no_grad()`, `nn.Linear(1024, 1024)` or `Tensor.detach()` links to the page conf/pytorch-api.toml
names (the build cannot download PyTorch's own inventory); `loss.backward()` names a variable, not
an API. A link loads nothing, so the page stays self-contained.

Sphinx: a transform. Tests: tests/test_fixture_projects.py (a page written for it).
"""

from __future__ import annotations

import re
import tomllib

from docutils import nodes
from sphinx.transforms import SphinxTransform

from book_extensions import ENV_VERSION
from book_extensions import pages
from book_extensions.languages import text

REFERENCE = "https://docs.pytorch.org/docs/stable/"
CALL = re.compile(r"^(?P<name>[A-Za-z_][\w.]*?)(?:\(.*\))?$")


def load_inventory() -> dict[str, str]:
    with open(pages.ROOT / "conf" / "pytorch-api.toml", "rb") as f:
        data = tomllib.load(f)
    urls = {name: REFERENCE + path for name, path in data["pages"].items()}
    urls |= {name: f"{REFERENCE}generated/{name}.html" for name in data["generated"]["names"]}
    for short, full in data["aliases"].items():
        if short.endswith("."):  # a prefix: nn.Linear -> torch.nn.Linear
            urls |= {short + name.removeprefix(full): url for name, url in list(urls.items()) if name.startswith(full)}
        else:
            urls[short] = urls[full]
    return urls


class LinkPytorchNames(SphinxTransform):
    default_priority = 700

    def apply(self):
        urls = load_inventory()
        for literal in list(self.document.findall(nodes.literal)):
            if isinstance(literal.parent, (nodes.reference, nodes.literal_block)):
                continue
            match = CALL.match(literal.astext().strip())
            url = urls.get(match["name"]) if match else None
            if url:
                link = nodes.reference(
                    "", "", refuri=url, classes=["pytorch-api"], reftitle=text(self.env, "api-link-title")
                )
                literal.replace_self(link)
                link += literal


def setup(app):
    app.add_transform(LinkPytorchNames)
    pages.every_page_depends_on(app, pages.ROOT / "conf" / "pytorch-api.toml")
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
