-- cp_jump: step 15 of critical_path (CriticalPath), repeated until no walk goes that far: the moves of the walk back twice as long as the previous ones.
-- Where a node's move of 2^k steps (cp_jump_prev) lands on a node that has one too, the two make
-- one of 2^(k+1) steps; a walk that ends sooner has none (pointer doubling: a path of L segments
-- needs about log2(L) of these, not L rounds).
-- Columns: at_rank, node, to_rank, to_node, hops.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_jump_prev (the moves of 2^k steps).
SELECT a.at_rank, a.node, b.to_rank, b.to_node, a.hops + b.hops AS hops
FROM cp_jump_prev a
JOIN cp_jump_prev b ON b.at_rank = a.to_rank AND b.node = a.to_node
