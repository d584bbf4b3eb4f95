"""The per-owner retrieval index in Firestore, server-only.

Each owner has two: all their cards (key: the owner's uid), and their public
cards alone (key: uid + PUBLIC_SUFFIX), through which anyone who chose that
owner's public cards ranks them without reading a document more for every
private card the owner has. Every change goes to both (changes.apply_changes): a
change that leaves the public partition as it was writes nothing there.

retrieval_index/{key} is the head: a version, the number of slots and, per
slot, the id of the shard document holding its entries
(retrieval_index_shards/{key}.{version}.{slot}.{token}, whose `owner` field holds the key: `data` is an
`index_entries.encode_shard` blob, ≤ MAX_SHARD_BYTES). A card's slot is
crc32(id) mod slots, so a change rewrites only the shards of the cards it
touches. A shard document is never changed once written: an update writes
new shard documents, then swaps the head in one transaction that checks the
version it started from (a concurrent writer's swap makes it start again),
then deletes the shards it replaced. A reader reads the head, then the
shards it names that it does not hold yet (cached by document id, so a warm
instance reads the head alone); a shard deleted under it means a newer head:
it reads again. A shard missing under a head that has not moved was deleted from
outside (a wiped database): the index reads as absent, and is rebuilt.

The modules, each building on the ones before it:
- shards: heads and shard documents (keys, slots, reads through the shard cache, writes, the head swap);
- reader: an owner's index in memory (`load`) and its entries;
- rebuild: an index from the owner's cards and stored vectors;
- changes: cards changed or deleted, applied to both partitions (rebuilt when that cannot be done in place).
"""
