-- wrk script for bench/run.py.
--   wrk -t1 -c32 -d10s -s bench/load.lua -H "Authorization: Bearer ..." http://127.0.0.1:PORT -- MODE IDS_FILE SEED
-- MODE: bare (GET /), single (GET /2/tweets/:id with expansions and fields), batch (GET /2/tweets?ids=<100>),
-- path (GET of the one path on the first line of IDS_FILE).
-- IDS_FILE: one existing post id per line (single and batch). Every response is checked: non2xx counts
-- any status outside 200-299. done() prints one line "WRK_RESULT {json}" for run.py to read.

local threads = {}
local started = 0

function setup(thread)
  started = started + 1
  thread:set("thread_index", started)
  table.insert(threads, thread)
end

local mode = "bare"
local ids = {}
local count = 0
local fixed = nil
local fields = "?expansions=author_id&tweet.fields=created_at,public_metrics"

-- globals, read from each thread in done()
non2xx = 0
responses = 0

function init(args)
  mode = args[1] or "bare"
  if args[2] ~= nil and args[2] ~= "" then
    for line in io.lines(args[2]) do
      if line ~= "" then
        count = count + 1
        ids[count] = line
      end
    end
  end
  math.randomseed((tonumber(args[3]) or 1) + (thread_index or 0) * 7919)
  if mode == "bare" then
    fixed = wrk.format(nil, "/")
  elseif mode == "path" then
    -- one fixed path: the first line of IDS_FILE (bench/home.py)
    fixed = wrk.format(nil, ids[1])
  elseif count < 100 then
    error("bench/load.lua: mode " .. mode .. " needs at least 100 ids in " .. tostring(args[2]))
  end
end

function request()
  if mode == "single" then
    return wrk.format(nil, "/2/tweets/" .. ids[math.random(count)] .. fields)
  elseif mode == "batch" then
    local seen, picked, n = {}, {}, 0
    while n < 100 do
      local id = ids[math.random(count)]
      if not seen[id] then
        seen[id] = true
        n = n + 1
        picked[n] = id
      end
    end
    return wrk.format(nil, "/2/tweets?ids=" .. table.concat(picked, ","))
  end
  return fixed
end

function response(status, headers, body)
  responses = responses + 1
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  local bad, seen = 0, 0
  for _, thread in ipairs(threads) do
    bad = bad + (thread:get("non2xx") or 0)
    seen = seen + (thread:get("responses") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,'
      .. '"max_us":%d,"mean_us":%d,"non2xx":%d,"responses":%d,"connect_errors":%d,"read_errors":%d,'
      .. '"write_errors":%d,"timeouts":%d,"status_errors":%d}\n',
    summary.requests, summary.duration, summary.bytes,
    math.floor(latency:percentile(50)), math.floor(latency:percentile(90)),
    math.floor(latency:percentile(99)), math.floor(latency.max), math.floor(latency.mean),
    bad, seen, e.connect, e.read, e.write, e.timeout, e.status))
end
