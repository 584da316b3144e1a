"""Each exercise as a notebook a reader opens in JupyterLab, Jupyter Notebook, VS Code or Colab.

``{exercise-notebook} <chapter>/<name>``, in the exercise's section right after its statement,
offers <lang>/exercises/<chapter>-<name>.ipynb, the starter file and the command that judges it;
``{exercise-setup}`` says how to install the judge from the site. The notebook, in the page's
language, holds the statement as the page shows it (``notebooks.MarkdownWriter``) with a link back,
how to run it, a cell installing the judge from the site when the kernel lacks it, the starter as a
``%%writefile`` cell, and a cell judging that file. Its cell ids are fixed and it has no outputs,
so a rebuild writes the same bytes.

Sphinx: two directives and a node; ``doctree-resolved`` writes the notebooks. Tests:
tests/test_exercise_notebooks.py, tests/test_exercises.py, tests/browser/test_practice.py.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

import exercise_judge
import nbformat
from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

import book_settings
from book_extensions import ENV_VERSION
from book_extensions.notebooks import KERNELSPEC, MarkdownWriter, NoMarkdownForm, link

logger = logging.getLogger(__name__)

FOLDER = "exercises"  # below each language's root: <lang>/exercises/<chapter>-<name>.ipynb
CELL_IDS = ("statement", "how-to", "install-judge", "solution", "judge")  # fixed: the tests find cells by them

STRINGS = {
    "zh_CN": {
        "offer": "练习笔记本：",
        "offer-after": (
            "：题目、作为代码单元格的起始文件，以及评测它并用中文给出结果的单元格。下载后可以在 "
            "JupyterLab、Jupyter Notebook 或 VS Code 里打开；在 Colab 里选择“文件 → 上传笔记本”。"
        ),
        "back": "本书中的这道练习：{link}",
        "how-to": (
            "## 怎样使用这个笔记本\n\n"
            "- **JupyterLab、Jupyter Notebook、VS Code**：打开这个文件，选一个装有 torch（{lowest} 及以上、低于 "
            "{above}）的 Python 内核，然后“全部运行”。\n"
            "- **Colab**：选择“文件 → 上传笔记本”，上传这个文件；Colab 已经装好了 torch。\n"
            "- 下一个单元格在内核缺少评测程序时从本书网站安装它（`{distribution}`）。\n"
            "- 在 `%%writefile` 单元格里写你的答案：运行它会把代码存成 `{file}`，放在笔记本所在的文件夹里。\n"
            "- 最后一个单元格评测这个文件，说明检查了什么、应当是什么、实际得到了什么。每次修改后，"
            "依次运行这两个单元格。\n"
            "- 在终端里也可以评测同一个文件：`python -m exercise_judge {id} {file} --lang zh`。"
        ),
        "install": "# 内核里没有评测程序时，从本书网站安装它。",
        "solution": "# 在这里写你的答案；运行本单元格会把它存成 {file}。",
        "judge": "# 评测上面单元格存下的文件，用中文给出结果。",
        "setup": (
            "每道练习都有一个待填写的起始文件、一个练习笔记本，以及一个评测程序：它用你自己装的 torch"
            "（{lowest} 及以上、低于 {above}）在你的机器上检查答案，说明检查了什么、应当是什么、实际得到了什么。"
            "评测程序只需安装一次，装进已经有 torch 的那个 Python 环境，从本书网站安装："
        ),
        "setup-after": "`python -m exercise_judge --list` 列出全部练习。每道练习下面都给出了评测它的命令，结果用中文。",
        "starter": "起始文件：",
        "starter-after": "。写完后这样评测：",
    },
    "en": {
        "offer": "Exercise notebook: ",
        "offer-after": (
            ": the statement, the starter file as a code cell, and a cell that judges it and prints "
            "the verdict in English. Download it and open it in JupyterLab, Jupyter Notebook or VS Code; "
            "in Colab, choose File → Upload notebook."
        ),
        "back": "This exercise in the book: {link}",
        "how-to": (
            "## How to use this notebook\n\n"
            "- **JupyterLab, Jupyter Notebook, VS Code**: open this file, pick a Python kernel that has torch "
            "({lowest} or newer, below {above}), then Run All.\n"
            "- **Colab**: choose File → Upload notebook and upload this file; Colab has torch already.\n"
            "- The next cell installs the judge (`{distribution}`) from the book's site when the kernel lacks it.\n"
            "- Write your solution in the `%%writefile` cell: running it saves the code as `{file}`, in the "
            "notebook's folder.\n"
            "- The last cell judges that file and says what it checked, what it expected and what it found. "
            "After each change, run those two cells again.\n"
            "- In a terminal, the same file is judged by `python -m exercise_judge {id} {file}`."
        ),
        "install": "# Install the judge from the book's site when this kernel lacks it.",
        "solution": "# Your solution goes here; running this cell saves it as {file}.",
        "judge": "# Judge the file saved by the cell above; the verdict is in English.",
        "setup": (
            "Each exercise has a starter file to fill in, an exercise notebook, and a judge that checks your "
            "solution on your machine, with your own torch ({lowest} or newer, below {above}), and says what it "
            "checked, what it expected and what it found. Install the judge once, from the book's site, in the "
            "Python environment that has torch:"
        ),
        "setup-after": (
            "`python -m exercise_judge --list` lists every exercise. Below each exercise is the command "
            "that judges it; add `--lang zh` for the verdict in Chinese."
        ),
        "starter": "Starter file: ",
        "starter-after": ". Judge your solution with:",
    },
}
LANGUAGE_OF = {"zh_CN": "zh", "en": "en"}  # the judge's language for each Sphinx language
# The installed judge's own range (the wheel nox installs in each torch venv), for the how-to cell.
TORCH_RANGE = tuple(".".join(map(str, release)) for release in exercise_judge.TORCH_RANGE)


def notebook_name(exercise_id: str) -> str:
    return exercise_id.replace("/", "-") + ".ipynb"


class exercise_offer(nodes.paragraph):
    """The paragraph offering the notebook; it remembers its exercise until the notebook is written."""


class ExerciseNotebook(SphinxDirective):
    required_arguments = 1
    has_content = False

    def run(self):
        exercise_id = self.arguments[0]
        starter = book_settings.exercise_file(exercise_id) if exercise_id.count("/") == 1 else None
        if starter is None or not starter.is_file():
            raise self.error(
                f"no exercise {exercise_id!r}: its starter file would be "
                f"{starter and starter.relative_to(book_settings.ROOT)} (argument: <chapter>/<name>)"
            )
        self.env.note_dependency(str(starter))
        words = STRINGS[self.config.language]
        name = notebook_name(exercise_id)
        docname_folder = posixpath.dirname(self.env.docname)
        refuri = posixpath.relpath(posixpath.join(FOLDER, name), docname_folder or ".")
        offer = exercise_offer(
            "",
            nodes.Text(words["offer"]),
            nodes.reference("", "", nodes.literal(name, name), refuri=refuri),
            nodes.Text(words["offer-after"]),
            exercise=exercise_id,
            classes=["exercise-notebook"],
        )
        self.set_source_info(offer)
        starter_link = addnodes.download_reference(
            "",
            "",
            nodes.literal(starter.name, starter.name),
            refdoc=self.env.docname,
            refexplicit=True,
            reftarget=Path(os.path.relpath(starter, Path(self.env.doc2path(self.env.docname)).parent)).as_posix(),
        )
        command = f"python -m exercise_judge {exercise_id} {starter.name}"
        command += " --lang zh" if LANGUAGE_OF[self.config.language] == "zh" else ""
        return [
            offer,
            nodes.paragraph("", "", nodes.Text(words["starter"]), starter_link, nodes.Text(words["starter-after"])),
            nodes.literal_block(command, command, language="bash"),
        ]


class ExerciseSetup(SphinxDirective):
    """The exercises' opening: what the judge does, and how to install it from the site (a copyable block)."""

    has_content = False

    def run(self):
        words = STRINGS[self.config.language]
        install = f"pip install --find-links {self.config.book_judge_url} {book_settings.JUDGE_DISTRIBUTION}"
        paragraph, _ = self.parse_inline(words["setup"].format(lowest=TORCH_RANGE[0], above=TORCH_RANGE[1]))
        after, _ = self.parse_inline(words["setup-after"])
        return [
            nodes.paragraph("", "", *paragraph),
            nodes.literal_block(install, install, language="bash"),
            nodes.paragraph("", "", *after),
        ]


def statement_blocks(offer: exercise_offer) -> tuple[nodes.title, list[nodes.Node]]:
    """The section's title and the blocks between it and the offer."""
    section = offer.parent
    if not isinstance(section, nodes.section):
        raise NoMarkdownForm(offer, "the exercise-notebook directive belongs right in the exercise's section")
    children = list(section.children)
    title, before = children[0], children[1 : children.index(offer)]
    return title, [node for node in before if not isinstance(node, nodes.target)]


def make_notebook(app, docname: str, offer: exercise_offer) -> nbformat.NotebookNode:
    exercise_id, language = offer["exercise"], app.config.language
    words, writer = STRINGS[language], MarkdownWriter(app, docname)
    title, blocks = statement_blocks(offer)
    anchor = title.parent["ids"][0] if title.parent["ids"] else ""
    back = link(title.astext(), writer.site_url(f"{posixpath.basename(docname)}.html#{anchor}"))
    file = f"exercise-{exercise_id.split('/')[1]}.py"
    starter = book_settings.exercise_file(exercise_id).read_text(encoding="utf-8")
    sources = [
        f"# {writer.inlines(title)}\n\n{writer.blocks(blocks)}\n\n{words['back'].format(link=back)}",
        words["how-to"].format(
            lowest=TORCH_RANGE[0],
            above=TORCH_RANGE[1],
            distribution=book_settings.JUDGE_DISTRIBUTION,
            file=file,
            id=exercise_id,
        ),
        f'{words["install"]}\nimport importlib.util\n\nif importlib.util.find_spec("exercise_judge") is None:\n'
        f"    %pip install --quiet --find-links {app.config.book_judge_url} {book_settings.JUDGE_DISTRIBUTION}",
        f"%%writefile {file}\n{words['solution'].format(file=file)}\n{starter.rstrip()}",
        f"{words['judge']}\nfrom exercise_judge import judge\n\n"
        f"print(judge({exercise_id!r}, {file!r}, language={LANGUAGE_OF[language]!r}).text)",
    ]
    cells = []
    for cell_id, source in zip(CELL_IDS, sources):
        make = nbformat.v4.new_markdown_cell if cell_id in ("statement", "how-to") else nbformat.v4.new_code_cell
        cell = make(source)
        cell["id"] = cell_id
        cells.append(cell)
    notebook = nbformat.v4.new_notebook(
        cells=cells,
        metadata={
            "kernelspec": KERNELSPEC,
            "language_info": {"name": "python"},
            "autograd_measured": {"exercise": exercise_id, "language": LANGUAGE_OF[language]},
        },
    )
    nbformat.validate(notebook)
    return notebook


def write_notebooks(app, doctree, docname):
    if app.builder.format != "html":
        return
    for offer in list(doctree.findall(exercise_offer)):
        try:
            notebook = make_notebook(app, docname, offer)
        except NoMarkdownForm as problem:
            logger.error(
                f"the exercise's notebook cannot be made: {problem}",
                location=problem.node,
                type="exercises",
                subtype="markdown",
            )
            continue
        target = Path(app.outdir, FOLDER, notebook_name(offer["exercise"]))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
        offer.replace_self(nodes.paragraph("", "", *offer.children, classes=offer["classes"]))


def setup(app):
    # Where readers' pip finds the judge: below the site's root (seo.py points html_baseurl at a language's folder).
    app.add_config_value("book_judge_url", f"{book_settings.SITE_URL}{book_settings.JUDGE_SITE_FOLDER}/", "env", str)
    app.add_node(exercise_offer)
    app.add_directive("exercise-notebook", ExerciseNotebook)
    app.add_directive("exercise-setup", ExerciseSetup)
    # Before notebooks.write_notebook (priority 500) makes the chapter's notebook: it finds a plain paragraph.
    app.connect("doctree-resolved", write_notebooks, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
