-- A dispatcher's claim of jobs limited to the names it has handlers for ({names}: those names as
-- literals; they pass the job name rules, and the claim's text is made once per dispatcher).
 AND name IN ({names})
