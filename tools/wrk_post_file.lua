-- wrk script: POST the bytes of one file to every request (the load run of Docs/server.md).
--   wrk -t2 -c8 -d20s --latency -s tools/wrk_post_file.lua 'http://127.0.0.1:8080/v1/classify' -- ../shared/images/bird.png
local body

function init(args)
  local path = args[1] or "../shared/images/bird.png"
  local file = assert(io.open(path, "rb"))
  body = file:read("*a")
  file:close()
end

function request()
  return wrk.format("POST", nil, { ["Content-Type"] = "application/octet-stream" }, body)
end

-- Non-2xx answers (503 busy, ...) are counted by wrk as "Non-2xx or 3xx responses".
