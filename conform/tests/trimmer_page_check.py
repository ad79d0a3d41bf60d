"""docs/trimmer-properties.md is not stale, in the cheap ways that can be checked.

The page's rates come from tools/trimmer-rates, a run of minutes that
needs the npm registry; this check needs neither. It holds that:
- the command the page gives to reproduce its table (a line starting
  `tools/trimmer-rates` in a code block) exists, is executable, and its
  --help exits 0; it uses --seed 1 and at least 2,000 sessions, and the
  line saying how the table was measured names the same command;
- every library named in the table and in the examples' headings is one
  an adapter of conform/adapters/ pins, at the version its
  package-lock.json holds, and every pinned library is in the table.

Then, so that it can fail, it plants in copies of the page a version that
is not pinned, and a command that does not exist, and needs each found.

Usage: trimmer_page_check.py SOURCE_DIR
Exit 0 when all holds; 1 with one line per finding otherwise.
"""
import glob
import json
import os
import re
import subprocess
import sys

PAGE = os.path.join("docs", "trimmer-properties.md")


def pinned_versions(source):
    """{package: version} of every adapter, from its package.json and package-lock.json."""
    pins = {}
    for manifest in sorted(glob.glob(os.path.join(source, "conform", "adapters", "*", "package.json"))):
        folder = os.path.dirname(manifest)
        with open(manifest, encoding="utf-8") as file:
            packages = list(json.load(file)["dependencies"])
        with open(os.path.join(folder, "package-lock.json"), encoding="utf-8") as file:
            lock = json.load(file)["packages"]
        for package in packages:
            pins[package] = lock["node_modules/" + package]["version"]
    return pins


def findings(source, text):
    problems = []
    commands = re.findall(r"^(tools/trimmer-rates(?: .*)?)$", text, re.MULTILINE)
    if len(commands) != 1:
        return [f"{PAGE}: names {len(commands)} reproduce commands (a line starting tools/trimmer-rates), not 1"]
    command = commands[0].split()
    tool = os.path.join(source, command[0])
    if not os.path.isfile(tool) or not os.access(tool, os.X_OK):
        problems.append(f"{PAGE}: its command {command[0]} is not an executable file of the tree")
    else:
        help_run = subprocess.run([tool, "--help"], capture_output=True, text=True)
        if help_run.returncode != 0 or "--seed" not in help_run.stdout:
            problems.append(f"{PAGE}: {command[0]} --help exited {help_run.returncode} without naming --seed")
    options = dict(zip(command[1::2], command[2::2]))
    if options.get("--seed") != "1" or not options.get("--runs", "").isdigit() or int(options["--runs"]) < 2000:
        problems.append(f"{PAGE}: its command {' '.join(command)} is not --seed 1 with --runs of 2000 or more")
    measured = re.search(r"^Measured with `([^`]*)`", text, re.MULTILINE)
    if not measured or measured.group(1).split() != command:
        problems.append(f"{PAGE}: the table says it was measured with "
                        f"{measured.group(1) if measured else 'no command'}, not {' '.join(command)}")
    pins = pinned_versions(source)
    rows = re.findall(r"^\| `([^`]+)` \| ([^ |]+) \|", text, re.MULTILINE)
    headings = re.findall(r"^#### `([^`]+)` ([^ ,]+),", text, re.MULTILINE)
    for library, version in rows + headings:
        if library not in pins:
            problems.append(f"{PAGE}: names {library}, which no adapter of conform/adapters/ pins")
        elif version != pins[library]:
            problems.append(f"{PAGE}: names {library} {version}; its adapter's package-lock.json pins {pins[library]}")
    for library in sorted(set(pins) - {library for library, _ in rows}):
        problems.append(f"{PAGE}: its table has no row for {library} {pins[library]}, which an adapter pins")
    return problems


def main(source):
    with open(os.path.join(source, PAGE), encoding="utf-8") as file:
        text = file.read()
    problems = findings(source, text)
    for problem in problems:
        print(problem)
    # The check itself, on planted staleness: each must be found.
    row = re.search(r"^\| `([^`]+)` \| ([^ |]+) \|", text, re.MULTILINE)
    if row is None:
        print(f"{PAGE}: no table row to plant a stale version in")
        return 1
    stale_version = text.replace(row.group(0), f"| `{row.group(1)}` | {row.group(2)}9 |", 1)
    stale_command = text.replace("tools/trimmer-rates --", "tools/trimmer-ratez --")
    for name, planted in (("a version no lock file pins", stale_version), ("a command that is not there", stale_command)):
        if not findings(source, planted):
            print(f"trimmer_page_check.py: {name}, planted in a copy of the page, was not found")
            problems.append(name)
    if not problems:
        print(f"{PAGE}: its versions are the pinned ones and its command runs ({len(pinned_versions(source))} libraries)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
