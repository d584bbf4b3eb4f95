"""Admin CLI: `python -m cardchat {import,demo-deck,demo-vectors,seed-vectors,backfill,requeue-skipped,reindex,
grant-ai,delete-account,migrate-chat-viewers,feedback,eval,eval-turns,eval-answers,eval-citations,sweep}`.

A thin dispatcher; the work is in importer, demo_deck, backfill, repo.card_writes
and evaluation. Firestore: the emulator when FIRESTORE_EMULATOR_HOST is set,
else the real project with application-default credentials.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google.cloud import firestore


def _client(project: str) -> firestore.Client:
    from google.cloud import firestore

    return firestore.Client(project=project)


def _import(args: argparse.Namespace) -> int:
    from cardchat.admin.importer import CardImportError, import_cards

    try:
        plan = import_cards(_client(args.project), Path(args.path), args.owner, args.visibility, args.dry_run)
    except CardImportError as e:
        done = "nothing written" if not e.written else f"{e.written} cards written before it stopped"
        print(f"import refused, {done}:\n{e}", file=sys.stderr)
        return 2
    verb = "would write" if args.dry_run else "wrote"
    print(f"{verb} {len(plan.writes)} cards, {len(plan.skipped)} unchanged")
    return 0


def _demo_deck(args: argparse.Namespace) -> int:
    from cardchat.admin.demo_deck import MissingGitDoc, write_deck

    try:
        n = write_deck(args.out, args.doc_dir)
    except MissingGitDoc as e:
        print(e, file=sys.stderr)
        return 1
    print(f"wrote {n} cards to {args.out}")
    return 0


def _backfill(args: argparse.Namespace) -> int:
    from cardchat.admin import backfill as bf

    db = _client(args.project)
    if args.gentle:
        from cardchat.repo.messages import answer_in_progress

        bf.gentle()
        done, fresh = bf.backfill(
            db, args.model, args.limit, busy=lambda: answer_in_progress(db), batch_size=bf.GENTLE_BATCH
        )
    else:
        done, fresh = bf.backfill(db, args.model, args.limit)
    print(f"embedded {done} cards ({fresh} already fresh)")
    return 0


def _demo_vectors(args: argparse.Namespace) -> int:
    from cardchat.admin.demo_vectors import fill

    done = fill(Path(args.deck), Path(args.folder), args.model)
    print(f"the deck's vectors: {done.made} embedded now, {done.reused} from the cache")
    return 0


def _seed_vectors(args: argparse.Namespace) -> int:
    from cardchat.admin.demo_vectors import seed

    done = seed(_client(args.project), Path(args.folder), args.model)
    print(f"stored {done.stored} cached vectors ({done.fresh} already fresh); left to the backfill: {done.left}")
    return 0


def _requeue_skipped(args: argparse.Namespace) -> int:
    from cardchat.admin import backfill as bf

    for owner, outcome in bf.requeue_skipped(_client(args.project), args.owner, args.model).items():
        print(f"{owner}: {outcome}")
    return 0


def _reindex(args: argparse.Namespace) -> int:
    from cardchat.repo import card_writes
    from cardchat.repo.retrieval_index import shards
    from cardchat.repo.retrieval_index.rebuild import rebuild

    db = _client(args.project)
    owners = [args.owner] if args.owner else sorted({c.owner for _, c in card_writes.iter_cards(db) if c.owner})
    for owner in owners:
        rebuild(db, owner, public=True)
        version = rebuild(db, owner)
        head = shards.read_head(db, owner) or {}
        print(f"{owner}: version {version}, {head.get('count', 0)} cards in {len(head.get('shards', []))} shards")
    return 0


def _grant_ai(args: argparse.Namespace) -> int:
    from cardchat.access.permissions import grant_ai

    admin = (not args.revoke) if args.admin else None
    doc = grant_ai(_client(args.project), args.uid, not args.revoke, admin)
    print(f"users/{args.uid}: may_use_ai={doc.may_use_ai} admin={doc.admin}")
    return 0


def _migrate_chat_viewers(args: argparse.Namespace) -> int:
    from cardchat.admin.chat_viewers import migrate

    moved = migrate(_client(args.project))
    print(f"moved the viewers of {moved.chats} chats into {moved.viewers} chat_viewers docs")
    return 0


def _rewrite_chat_authors(args: argparse.Namespace) -> int:
    from cardchat.admin.chat_authors import rewrite
    from cardchat.repo.admin_app import admin_app

    done = rewrite(_client(args.project), admin_app(args.project))
    print(f"rewrote {done.rewritten} of {done.chips} author chips to the owner's display name or none")
    return 0


def _rewrite_chat_authors_command(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser(
        "rewrite-chat-authors",
        parents=[common],
        help="once, on deploy: author chips name the owner's display name or nothing, never an email (idempotent)",
    )
    s.set_defaults(run=_rewrite_chat_authors)


def _delete_account(args: argparse.Namespace) -> int:
    from cardchat.admin.accounts import delete_account

    delete_account(_client(args.project), args.project, args.uid)
    print(f"deleted every document of {args.uid} and their Auth account")
    return 0


def _eval(args: argparse.Namespace) -> int:
    from cardchat.admin.evaluation import main

    return main(args.sets, args.model)


def _feedback(args: argparse.Namespace) -> int:
    from cardchat.admin import feedback
    from cardchat.schema.documents import now

    try:
        since = feedback.parse_since(args.since, now())
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    found = feedback.rows(_client(args.project), since)
    sys.stdout.write(feedback.as_csv(found) if args.csv else feedback.as_table(found))
    return 0


def _sweep(args: argparse.Namespace) -> int:
    """Once, or every `--every` seconds until stopped: the emulators run no schedule (main.sweepAnswers)."""
    import time

    from cardchat.generation.sweeper import sweep, sweep_leaseless

    db = _client(args.project)
    legacy = sweep_leaseless(db)
    print(f"sweep: {legacy.found} live without a lease (from before leases), re-drove {len(legacy.redriven)}")
    while True:
        done = sweep(db)
        if done.found or not args.every:
            print(f"sweep: {done.found} stalled, re-drove {len(done.redriven)}, failed {len(done.failed)}", flush=True)
        if not args.every:
            return 0
        time.sleep(args.every)


def _eval_turns(args: argparse.Namespace) -> int:
    from cardchat.admin.turn_evaluation import main

    return main(args.sets, args.model)


def _eval_answers(args: argparse.Namespace) -> int:
    from cardchat.admin.answer_evaluation import main

    return main(args.sets, args.model)


def _eval_citations(args: argparse.Namespace) -> int:
    from cardchat.admin.citation_evaluation import main

    return main(args.write_floor, args.fit)


def _embedding_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """backfill, demo-vectors, seed-vectors, requeue-skipped, reindex: the vectors and the index built from them."""
    s = sub.add_parser("backfill", parents=[common], help="embed cards whose embedding is missing or stale")
    s.add_argument("--model", help="embeddings: minilm, openai or gemini (default: CARDCHAT_EMBEDDINGS or minilm)")
    s.add_argument("--limit", type=int)
    s.add_argument(
        "--gentle",
        action="store_true",
        help="beside a live app: lowest priority, small batches, paused while an answer generates",
    )
    s.set_defaults(run=_backfill)

    s = sub.add_parser("demo-vectors", help="embed a deck (a JSON export) into a vector cache in FOLDER, once")
    s.add_argument("deck")
    s.add_argument("folder")
    s.add_argument("--model", help="embeddings: minilm, openai or gemini (default: CARDCHAT_EMBEDDINGS or minilm)")
    s.set_defaults(run=_demo_vectors)

    s = sub.add_parser("seed-vectors", parents=[common], help="store the vectors cached in FOLDER with the cards")
    s.add_argument("folder")
    s.add_argument("--model", help="embeddings: minilm, openai or gemini (default: CARDCHAT_EMBEDDINGS or minilm)")
    s.set_defaults(run=_seed_vectors)

    s = sub.add_parser(
        "requeue-skipped", parents=[common], help="embed cards skipped over a card quota, under the quota as set now"
    )
    s.add_argument("--owner", help="uid (default: every owner with a skipped card)")
    s.add_argument("--model", help="embeddings: minilm, openai or gemini (default: CARDCHAT_EMBEDDINGS or minilm)")
    s.set_defaults(run=_requeue_skipped)

    s = sub.add_parser("reindex", parents=[common], help="rebuild the retrieval index of one owner, or of every owner")
    s.add_argument("--owner", help="uid (default: every owner of a card)")
    s.set_defaults(run=_reindex)


def _sweep_command(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser("sweep", parents=[common], help="re-drive or fail answers whose run died (lease ran out)")
    s.add_argument("--every", type=float, help="seconds: sweep again after each pause, until stopped")
    s.set_defaults(run=_sweep)


def _eval_answers_command(sub: Any) -> None:
    s = sub.add_parser("eval-answers", help="citation precision, uncited claims and coverage accuracy of answers")
    s.add_argument("sets", nargs="*", help="answer set JSON files (default: every eval/answers/*.json)")
    s.add_argument("--model", default="minilm")
    s.set_defaults(run=_eval_answers)
    s = sub.add_parser("eval-citations", help="precision and recall of the citation checks' verdicts, per kind of pair")
    s.add_argument("--write-floor", action="store_true", help="publish the held-out figures as the gate's floor")
    s.add_argument("--fit", action="store_true", help="choose the checks' thresholds on the fit half (prints the grid)")
    s.set_defaults(run=_eval_citations)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m cardchat")
    project_help = "Firestore project (default: $GCLOUD_PROJECT or demo-cardchat)"
    p.add_argument("--project", default=os.environ.get("GCLOUD_PROJECT") or "demo-cardchat", help=project_help)
    # Also accepted after the subcommand; SUPPRESS keeps the top-level value when absent there.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--project", default=argparse.SUPPRESS, help=project_help)
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("import", parents=[common], help="upsert cards from a Markdown folder or a JSON export")
    s.add_argument("path")
    s.add_argument("--owner", help="uid that owns every card imported (a card naming another owner is refused)")
    s.add_argument("--visibility", choices=("public", "private"), help="for cards that do not say")
    s.add_argument("--dry-run", action="store_true")
    s.set_defaults(run=_import)

    s = sub.add_parser("demo-deck", help="write the git-doc demo deck as a JSON export")
    s.add_argument("out")
    s.add_argument("--doc-dir", default="/usr/share/doc/git-doc")
    s.set_defaults(run=_demo_deck)

    _embedding_commands(sub, common)

    s = sub.add_parser("grant-ai", parents=[common], help="let a user chat with the AI (users/{uid}.may_use_ai)")
    s.add_argument("uid")
    s.add_argument("--revoke", action="store_true")
    s.add_argument("--admin", action="store_true", help="also grant (with --revoke: revoke) admin")
    s.set_defaults(run=_grant_ai)

    s = sub.add_parser("delete-account", parents=[common], help="delete a user's data and Auth account (resumable)")
    s.add_argument("--uid", required=True)
    s.set_defaults(run=_delete_account)

    s = sub.add_parser(
        "migrate-chat-viewers",
        parents=[common],
        help="once, on deploy: move chats' `viewers` lists into chat_viewers docs (idempotent)",
    )
    s.set_defaults(run=_migrate_chat_viewers)

    s = sub.add_parser(
        "feedback", parents=[common], help="rated answers: model, rating, comment, question, cited cards"
    )
    s.add_argument("--since", default="7d", help="7d, 12h or a date (YYYY-MM-DD); default 7d")
    s.add_argument("--csv", action="store_true", help="CSV instead of a table")
    s.set_defaults(run=_feedback)

    s = sub.add_parser("eval", help="recall@5/10 and MRR of dense, sparse and hybrid ranking")
    s.add_argument("sets", nargs="*", help="eval set JSON files (default: every eval/sets/*.json)")
    s.add_argument("--model", default="minilm")
    s.set_defaults(run=_eval)

    s = sub.add_parser("eval-turns", help="share of follow-ups whose answering card is in the context")
    s.add_argument("sets", nargs="*", help="follow-up set JSON files (default: every eval/followups/*.json)")
    s.add_argument("--model", default="minilm")
    s.set_defaults(run=_eval_turns)
    _eval_answers_command(sub)
    _sweep_command(sub, common)
    _rewrite_chat_authors_command(sub, common)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
