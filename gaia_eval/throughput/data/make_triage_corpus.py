"""Generate the committed email-triage corpus (`triage_emails.jsonl`), once, from a seed.

Run: `python gaia_eval/throughput/data/make_triage_corpus.py` (rewrites the file beside it;
the output is byte-identical for the same seed, and a test checks that it still is).

Each email is synthetic (invented people and companies) with three labels a person would
give it: `urgency` 1-5 (1 ignore, 2 low, 3 normal, 4 today, 5 now; urgent means >= 4), a
`category`, and `personal` (about the reader's own life rather than work or commerce).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SEED = 20260930
CATEGORIES = ("work", "finance", "travel", "shopping", "newsletter", "social", "security", "health")
FIRST = ("Ana", "Ben", "Chloe", "Dev", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemi")
LAST = ("Moreau", "Okafor", "Lindqvist", "Patel", "Reyes", "Schmidt", "Tanaka", "Novak", "Silva")
COMPANIES = ("Northwind", "Contoso", "Fabrikam", "Tailspin", "Litware", "Adatum", "Wingtip")
PROJECTS = ("billing migration", "Q3 roadmap", "search relaunch", "data export", "mobile beta")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")

# (category, urgency, personal, subject, body); {slots} are filled per email.
TEMPLATES: tuple[tuple[str, int, bool, str, str], ...] = (
    ("work", 5, False, "Production is down: {project}",
     "Hi,\n\nThe {project} service has been returning errors for all customers since "
     "{time}. On-call needs you on the incident bridge right now.\n\n{sender}"),
    ("work", 4, False, "Need your sign-off today on {project}",
     "Hi,\n\nLegal wants your approval on the {project} contract before 5 pm today or we "
     "lose the slot. It is a two-minute read.\n\nThanks,\n{sender}"),
    ("work", 3, False, "Notes from the {project} sync",
     "Hi all,\n\nAttached are the notes from {day}'s sync on the {project}. Action items "
     "are at the bottom; nothing is blocking.\n\n{sender}"),
    ("work", 2, False, "Optional: lunch-and-learn on {project}",
     "Hi team,\n\nI am running an optional lunch-and-learn about the {project} next "
     "{day}. Join if you are curious.\n\n{sender}"),
    ("finance", 5, True, "Payment failed: your rent transfer of {amount}",
     "Your scheduled transfer of {amount} to your landlord was declined. It is due today; "
     "retry now to avoid a late fee.\n\n{company} Bank"),
    ("finance", 4, True, "Your card bill of {amount} is due tomorrow",
     "Your {company} card statement balance of {amount} is due tomorrow. Pay today to "
     "avoid interest.\n\n{company} Card Services"),
    ("finance", 3, True, "Your {month} statement is ready",
     "Your {month} statement for the account ending {digits} is now available. No action "
     "is needed.\n\n{company} Bank"),
    ("finance", 2, False, "Invoice {digits} from {company}",
     "Please find attached invoice {digits} for {amount}, payable within 30 days.\n\n"
     "Accounts, {company}"),
    ("travel", 5, True, "Your flight {flight} is boarding in 30 minutes at a new gate",
     "Gate change: flight {flight} now boards at gate B{digits2} in 30 minutes. Please go "
     "to the new gate now.\n\n{company} Airways"),
    ("travel", 4, True, "Check in now for tomorrow's flight {flight}",
     "Online check-in for flight {flight} tomorrow at {time} closes in a few hours.\n\n"
     "{company} Airways"),
    ("travel", 3, True, "Your hotel booking in {city} is confirmed",
     "Your stay in {city} from {day} is confirmed. Booking reference {digits}.\n\n"
     "{company} Hotels"),
    ("travel", 1, False, "Last-minute deals to {city}",
     "Escape this weekend! Flights to {city} from {amount}. Offer ends soon.\n\n"
     "{company} Travel"),
    ("shopping", 3, True, "Your order {digits} has shipped",
     "Good news: your order {digits} is on its way and should arrive {day}.\n\n{company} Shop"),
    ("shopping", 4, True, "Action needed: your delivery {digits} is held at customs",
     "Your parcel {digits} is held at customs; pay the {amount} fee by tonight or it will "
     "be returned.\n\n{company} Logistics"),
    ("shopping", 1, False, "Flash sale: 40% off everything",
     "Our biggest sale of the season starts now. Use code SAVE40 at checkout.\n\n"
     "{company} Shop"),
    ("shopping", 2, True, "How did we do? Rate your order {digits}",
     "Tell us about your recent order {digits} and get 5% off your next one.\n\n"
     "{company} Shop"),
    ("newsletter", 1, False, "This week in tech: {project} and more",
     "Your weekly digest: ten stories about {project}, cloud pricing and a new laptop "
     "review.\n\nUnsubscribe any time. {company} Weekly"),
    ("newsletter", 1, False, "{company} product updates for {month}",
     "Here is what shipped in {month}: dark mode, faster exports and a new API.\n\n"
     "The {company} team"),
    ("newsletter", 2, False, "Webinar on {day}: scaling your {project}",
     "Register for our free webinar this {day} on scaling a {project}.\n\n{company} Events"),
    ("social", 5, True, "Mum is in hospital, call me",
     "Hi,\n\nMum was taken to hospital an hour ago; she is stable but asking for you. "
     "Please call me as soon as you read this.\n\n{first}"),
    ("social", 4, True, "Are we still on for dinner tonight?",
     "Hey! Are we still on for dinner tonight at 7? I need to confirm the table by 3.\n\n"
     "{first}"),
    ("social", 3, True, "Photos from the weekend",
     "Hi! Here are the photos from the hike on {day}. Some really good ones of the lake.\n\n"
     "{first}"),
    ("social", 2, True, "Book club next month",
     "Hi everyone, next month's book club pick is up for a vote. No rush.\n\n{first}"),
    ("security", 5, True, "New sign-in to your account from an unknown device",
     "Someone signed in to your {company} account from a new device in {city} at {time}. "
     "If this was not you, reset your password immediately.\n\n{company} Security"),
    ("security", 4, False, "Critical security patch required on {project} servers today",
     "A critical vulnerability affects the {project} servers. Patch before end of day; the "
     "exploit is public.\n\n{sender}, Security team"),
    ("security", 2, False, "Reminder: annual security training",
     "Please complete the annual security training by the end of next month.\n\nIT"),
    ("health", 4, True, "Your test results are ready: please call the clinic today",
     "Dear patient, your recent test results are ready. Please call the clinic today to "
     "discuss them with Dr {last}.\n\n{company} Clinic"),
    ("health", 3, True, "Appointment reminder: {day} at {time}",
     "This is a reminder of your appointment with Dr {last} on {day} at {time}.\n\n"
     "{company} Clinic"),
    ("health", 1, False, "Ten tips for better sleep",
     "Our wellness newsletter: ten simple tips for better sleep this {month}.\n\n"
     "{company} Health"),
)  # fmt: skip


def _slots(rng: random.Random) -> dict[str, str]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {
        "first": first,
        "last": last,
        "sender": f"{rng.choice(FIRST)} {rng.choice(LAST)}",
        "company": rng.choice(COMPANIES),
        "project": rng.choice(PROJECTS),
        "day": rng.choice(DAYS),
        "month": rng.choice(("March", "June", "September", "November")),
        "time": f"{rng.randint(6, 21):02d}:{rng.choice((0, 15, 30, 45)):02d}",
        "amount": f"${rng.randint(12, 2400)}.{rng.randint(0, 99):02d}",
        "digits": str(rng.randint(1000, 99999)),
        "digits2": str(rng.randint(2, 40)),
        "flight": f"{rng.choice('ABCDEFGH')}{rng.choice('KLMNPQRS')}{rng.randint(100, 999)}",
        "city": rng.choice(("Lisbon", "Osaka", "Nairobi", "Toronto", "Krakow", "Lima")),
    }


def generate(seed: int = SEED, per_template: int = 3) -> list[dict[str, object]]:
    """The corpus rows, in id order."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    for t_index, (category, urgency, personal, subject, body) in enumerate(TEMPLATES):
        for k in range(per_template):
            sender = f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower()}@example.com"
            slots = _slots(rng)
            rows.append(
                {
                    "id": f"email-{t_index:02d}-{k}",
                    "from": sender,
                    "subject": subject.format(**slots),
                    "body": body.format(**slots),
                    "labels": {"urgency": urgency, "category": category, "personal": personal},
                }
            )
    rng.shuffle(rows)
    return rows


def render(rows: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)


def main() -> int:
    out = Path(__file__).with_name("triage_emails.jsonl")
    rows = generate()
    out.write_text(render(rows), encoding="utf-8")
    print(f"wrote {len(rows)} emails to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
