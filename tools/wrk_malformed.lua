-- wrk script for vision-server's hostile-input run (tools/soak_server.sh): each request is the next of a list of
-- malformed bodies, read at start from the manifest given after `--` (lines: ROUTE<TAB>CONTENT-TYPE<TAB>FILE),
-- and the answers' statuses are tallied per thread and printed at the end.
--   wrk -t2 -c4 -d60s -s tools/wrk_malformed.lua http://127.0.0.1:8080 -- bodies.tsv
local requests = {}
local next_index = 1
statuses = {}

function init(args)
  for line in io.lines(args[1]) do
    local route, content_type, path = line:match("^(%S+)\t(%S+)\t(.+)$")
    local file = assert(io.open(path, "rb"))
    local body = file:read("*a")
    file:close()
    requests[#requests + 1] = wrk.format("POST", route, { ["Content-Type"] = content_type }, body)
  end
end

function request()
  local r = requests[next_index]
  next_index = next_index % #requests + 1
  return r
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

local threads = {}
function setup(thread)
  threads[#threads + 1] = thread
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      total[status] = (total[status] or 0) + count
    end
  end
  local keys = {}
  for status in pairs(total) do keys[#keys + 1] = status end
  table.sort(keys)
  for _, status in ipairs(keys) do
    io.write(string.format("status %d: %d\n", status, total[status]))
  end
end
