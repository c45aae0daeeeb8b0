-- wrk script for bench/writes.py: POST /2/tweets, one new post per request.
--   wrk -t1 -c64 -d10s -s bench/writes.lua -H "Authorization: Bearer <user token>" http://127.0.0.1:PORT \
--       -- WORDS_FILE IDS_OUT NONCE SEED
-- WORDS_FILE: lines "w <word>", "t <hashtag>", "m <username>" (bench/writes_setup.py writes it).
-- Each text is unique: the run's NONCE, the thread and a counter, then 9 random words; 30% carry a
-- hashtag and 20% a mention, so entity extraction and mention lookups run. Every response is checked:
-- a 201's post id is kept (IDS_OUT gets them, one a line, from done()); non2xx counts any status outside
-- 200-299. done() prints one line "WRK_RESULT {json}" for bench/writes.py to read.

local threads = {}
local started = 0

function setup(thread)
  started = started + 1
  thread:set("thread_index", started)
  table.insert(threads, thread)
end

local words, tags, users = {}, {}, {}
local nonce = "x"
local counter = 0

-- globals, read from each thread in done()
non2xx = 0
server_errors = 0
responses = 0
created = 0
no_id = 0
acked = {}
first_error = ""
ids_out = ""

function init(args)
  for line in io.lines(args[1]) do
    local kind, value = line:match("^(%a) (.+)$")
    if kind == "w" then
      words[#words + 1] = value
    elseif kind == "t" then
      tags[#tags + 1] = value
    elseif kind == "m" then
      users[#users + 1] = value
    end
  end
  if #words < 10 or #tags < 1 or #users < 1 then
    error("bench/writes.lua: too few words, tags or users in " .. tostring(args[1]))
  end
  wrk.headers["Content-Type"] = "application/json" -- beside the -H headers (a table given to
  -- wrk.format would replace them)
  ids_out = args[2] or ""
  nonce = args[3] or "x"
  math.randomseed((tonumber(args[4]) or 1) + (thread_index or 0) * 7919)
end

function request()
  counter = counter + 1
  local parts = { nonce, "t" .. (thread_index or 0) .. "n" .. counter }
  for _ = 1, 9 do
    parts[#parts + 1] = words[math.random(#words)]
  end
  if math.random() < 0.3 then
    parts[#parts + 1] = "#" .. tags[math.random(#tags)]
  end
  if math.random() < 0.2 then
    parts[#parts + 1] = "@" .. users[math.random(#users)]
  end
  local body = '{"text":"' .. table.concat(parts, " ") .. '"}'
  return wrk.format("POST", "/2/tweets", nil, body)
end

function response(status, headers, body)
  responses = responses + 1
  if status == 201 then
    local id = body and body:match('"id":"(%d+)"')
    if id then
      created = created + 1
      acked[created] = id
    else
      no_id = no_id + 1
    end
  elseif status < 200 or status > 299 then
    non2xx = non2xx + 1
    if status >= 500 then
      server_errors = server_errors + 1
    end
    if first_error == "" then
      first_error = status .. " " .. string.sub(body or "", 1, 200)
    end
  end
end

function done(summary, latency, requests)
  local bad, seen, made, fives, missing_id, sample = 0, 0, 0, 0, 0, ""
  local out = nil
  for _, thread in ipairs(threads) do
    bad = bad + (thread:get("non2xx") or 0)
    seen = seen + (thread:get("responses") or 0)
    made = made + (thread:get("created") or 0)
    fives = fives + (thread:get("server_errors") or 0)
    missing_id = missing_id + (thread:get("no_id") or 0)
    if sample == "" then
      sample = thread:get("first_error") or ""
    end
    local path = thread:get("ids_out") or ""
    if path ~= "" then
      out = out or assert(io.open(path, "w"))
      for _, id in ipairs(thread:get("acked") or {}) do
        out:write(id, "\n")
      end
    end
  end
  if out then
    out:close()
  end
  sample = sample:gsub('[%c"\\]', " ")
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,'
      .. '"max_us":%d,"mean_us":%d,"non2xx":%d,"responses":%d,"connect_errors":%d,"read_errors":%d,'
      .. '"write_errors":%d,"timeouts":%d,"status_errors":%d,"created":%d,"server_errors":%d,'
      .. '"no_id":%d,"first_error":"%s"}\n',
    summary.requests, summary.duration, summary.bytes,
    math.floor(latency:percentile(50)), math.floor(latency:percentile(90)),
    math.floor(latency:percentile(99)), math.floor(latency.max), math.floor(latency.mean),
    bad, seen, e.connect, e.read, e.write, e.timeout, e.status, made, fives, missing_id, sample))
end
