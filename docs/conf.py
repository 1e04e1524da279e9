"""Sphinx configuration of ikchain's documentation site.

Build with ``sphinx-build -W docs docs/_build`` (warnings are errors). Nothing here
reaches the network: no intersphinx, no remote fonts or images; the gallery's scripts
(``examples/``) run at build time and the benchmarks page is rendered from the JSON
under ``docs/benchmarks/``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import ikchain

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

# matplotlib draws into files only (the gallery's scraper collects the figures).
os.environ.setdefault("MPLBACKEND", "Agg")

project = "ikchain"
author = "the ikchain developers"
copyright = "2026, the ikchain developers"
release = ikchain.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "bench_page",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
root_doc = "index"
default_role = "py:obj"
# Docstrings name numpy's array_like and friends; they are words here, not references.
nitpicky = True


# -- autodoc / autosummary / numpydoc ----------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types, with shapes
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# -- sphinx-gallery ----------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # every plot_*.py runs at build time
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    # the timing pages load jQuery and DataTables from CDNs: the site must work offline
    "write_computation_times": False,
    "show_signature": False,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
}

# -- HTML --------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"ikchain {release}"
html_static_path = ["_static"]
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_context = {"default_mode": "light"}

# -- the benchmarks page (docs/_ext/bench_page.py) ----------------------------------------
# One committed `ikchain bench --json` run and the run of the older commit it compares
# its batch figures with, timed a minute before it on the same machine.
bench_run = {
    "json": "benchmarks/2026-12-07-659699e.json",
    "commit": "659699e",
    "command": "OPENBLAS_NUM_THREADS=1 ikchain bench --baseline base.json --json now.json",
    "baseline_json": "benchmarks/2026-12-07-0b9af1f.json",
    "baseline_commit": "0b9af1f",
    "baseline_command": "OPENBLAS_NUM_THREADS=1 python -m ikchain bench --json base.json",
}

# Module pages (docs/_templates/autosummary/module.rst) leave out the names that
# ``ikchain`` re-exports (they have their own pages under ``ikchain.``) and type aliases.
autosummary_context = {
    "reexported": {
        "ikchain.kinematics": [
            "joints_from_angles",
            "end_from_angles",
            "jacobian_from_angles",
            "reach_from_lengths",
            "min_error_from_target",
            "FloatArray",
        ],
        "ikchain.manipulability": ["condition_from_angles"],
        "ikchain.solvers": ["solve", "follow", "default_init", "Solver", "Options"],
        "ikchain.solvers.solver": ["Solver"],
        "ikchain.solvers.methods": ["METHODS"],
    },
}

# -- cross-references ----------------------------------------------------------------------
# nitpicky: a reference to nothing fails the build. Two kinds are let through: modules
# that are not part of the API reference (the compiled kernels' loop and reach search,
# the bench), which docstrings name for the curious.
nitpick_ignore = [
    ("py:mod", "ikchain.solvers.loop"),
    ("py:mod", "ikchain.solvers.limited"),
    ("py:mod", "ikchain.bench"),
]


def resolve_short_names(app, env, node, contnode):
    """A Python reference Sphinx could not resolve, resolved by its last name when one
    documented object alone carries it: docstrings name their neighbours briefly
    (``condition_from_manipulability`` beside ``ikchain.condition_from_angles``), and
    ``ikchain.solvers`` re-exports the names documented in ``ikchain.solvers.methods``."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    last = target.rsplit(".", 1)[-1]
    domain = env.get_domain("py")
    matches = [name for name in domain.objects if name.rsplit(".", 1)[-1] == last]
    if len(matches) > 1:  # prefer those under the module the reference names
        prefix = target.rsplit(".", 1)[0] + "." if "." in target else ""
        matches = [name for name in matches if prefix and name.startswith(prefix)]
    if len(matches) != 1:
        return None
    from sphinx.util.nodes import make_refnode

    name = matches[0]
    docname = domain.objects[name].docname
    return make_refnode(app.builder, node["refdoc"], docname, name, contnode, name)


def setup(app):
    app.connect("missing-reference", resolve_short_names)
