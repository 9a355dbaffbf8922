-- wrk script: POST a task (a durable create: each 201 waits for the fsync).
wrk.method = "POST"
wrk.body = '{"title":"Write the benchmark","completed":false}'
wrk.headers["Content-Type"] = "application/json"
