"""The words of the "why" explanations (engine/why.py), per language.

Every language has every key (tests/test_why.py checks it); `{name}` fields are filled
in from the engine's records. `#7` is a server-order number: the same number the
panes show in their gutters and the lanes view in its first column.
"""

from __future__ import annotations

from playground.i18n import ENGLISH

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "itself": "{client} itself",
        "aborted_changed": "{who} changed WATCHed {key} ({cmd}, #{seq}) after {client}'s WATCH (#{watch}): "
                           "EXEC aborted, nothing ran.",
        "aborted_same": "{who} rewrote WATCHed {key} with the value it already had ({cmd}, #{seq}): any write "
                        "to a WATCHed key aborts EXEC, even one that leaves it as it was.",
        "aborted_ttl": "{who} changed only the TTL of WATCHed {key} ({cmd}, #{seq}) after {client}'s WATCH "
                       "(#{watch}); its value stayed as it was, but a new or removed TTL is a change to the key, "
                       "so EXEC aborted.",
        "aborted_expired": "WATCHed {key} expired after {client}'s WATCH (#{watch}): no client wrote it, but "
                           "an expiry counts as a change, so EXEC aborted.",
        "aborted_flush": "{who} ran {cmd} (#{seq}) after {client}'s WATCH: a flush changes every key, WATCHed "
                         "{key} included, so EXEC aborted.",
        "aborted_mark_reset": "The playground emptied the server (a fresh start) after the WATCH: WATCHed {key} "
                         "changed, so EXEC aborted.",
        "aborted_mark_restart": "The server restarted after the WATCH: EXEC aborted.",
        "aborted_mark_flush": "The playground flushed the server (Flush db) after the WATCH: WATCHed {key} "
                              "changed, so EXEC aborted.",
        "aborted_unknown": "A WATCHed key ({keys}) changed, but not by a command of the playground's "
                           "clients: another connection wrote it, or it expired.",
        "unwatched": "{who} wrote {key} ({cmd}, #{seq}) after #{start} ({client}'s last command before this "
                     "transaction), and EXEC still ran: {key} was not WATCHed, so nothing told the transaction. "
                     "WATCH {key} before reading it and EXEC would have aborted.",
        "execabort": "{cmd} was rejected when it was queued ({error}){more}: with one rejected command the "
                     "server runs none of the transaction.",
        "execabort_more": ", and {n} more",
        "execabort_unknown": "A command was rejected when it was queued ({error}): nothing ran.",
        "busy": "{who}'s script ({cmd}) has been running for {seconds}s, and the server runs one thing at a "
                "time, so it answers everyone else BUSY. SCRIPT KILL stops the script if it has not written "
                "yet; SHUTDOWN NOSAVE stops the server, losing every unsaved write.",
        "busy_unknown": "A script is running (not one of the playground's clients), and the server answers "
                        "everyone else BUSY until it ends. SCRIPT KILL stops it if it has not written yet.",
        "unkillable": "{who}'s script ({cmd}, running {seconds}s) has already written: killing it would leave "
                      "its changes half done, so SCRIPT KILL refuses. It ends when it finishes, or with "
                      "SHUTDOWN NOSAVE (the server stops; unsaved writes are lost).",
        "unkillable_unknown": "The running script has already written: killing it would leave its changes "
                              "half done, so SCRIPT KILL refuses. Only SHUTDOWN NOSAVE stops it.",
        "noscript_flush": "{who} emptied the script cache with SCRIPT FLUSH (#{seq}) after the script was "
                          "loaded (#{loaded}): EVALSHA only runs a cached script. Send it again with EVAL "
                          "or SCRIPT LOAD.",
        "noscript_mark_reset": "The script cache was emptied by a fresh start (a new part) after the script was "
                          "loaded (#{loaded}): send it again with EVAL or SCRIPT LOAD.",
        "noscript_mark_flush": "The playground flushed the server and its script cache (Flush db) after the "
                               "script was loaded (#{loaded}): send it again with EVAL or SCRIPT LOAD.",
        "noscript_mark_restart": "The server restarted after the script was loaded (#{loaded}): a new server has "
                            "no cached scripts. Send it again with EVAL or SCRIPT LOAD.",
        "noscript_gone": "The script was loaded (#{loaded}) but the cache no longer has it (flushed from "
                         "outside the playground's clients): send it again with EVAL or SCRIPT LOAD.",
        "noscript_never": "This server never had that script: no EVAL or SCRIPT LOAD of it ran here. "
                          "EVALSHA only runs a cached script; send it once with EVAL or SCRIPT LOAD.",
    },
    "zh": {
        "itself": "{client} 自己",
        "aborted_changed": "{client} WATCH 之后（#{watch}），{who} 改了被 WATCH 的 {key}（{cmd}，#{seq}）："
                           "EXEC 放弃，事务里什么都没执行。",
        "aborted_same": "{who} 把被 WATCH 的 {key} 写成了原来的值（{cmd}，#{seq}）：只要写了被 WATCH 的键，"
                        "哪怕值没变，EXEC 也会放弃。",
        "aborted_ttl": "{client} WATCH 之后（#{watch}），{who} 只改了被 WATCH 的 {key} 的过期时间（{cmd}，#{seq}）："
                       "值没有变，但设置或去掉过期时间也是对键的改变，所以 EXEC 放弃。",
        "aborted_expired": "{client} WATCH 之后（#{watch}），被 WATCH 的 {key} 过期了：没有客户端写它，"
                           "但过期也算改变，所以 EXEC 放弃。",
        "aborted_flush": "{client} WATCH 之后，{who} 执行了 {cmd}（#{seq}）：清空会改变每个键，"
                         "包括被 WATCH 的 {key}，所以 EXEC 放弃。",
        "aborted_mark_reset": "WATCH 之后 playground 清空了服务器（重新开始）：被 WATCH 的 {key} 变了，"
                         "所以 EXEC 放弃。",
        "aborted_mark_restart": "WATCH 之后服务器重启了：EXEC 放弃。",
        "aborted_mark_flush": "WATCH 之后 playground 清空了服务器（Flush db）：被 WATCH 的 {key} 变了，"
                              "所以 EXEC 放弃。",
        "aborted_unknown": "被 WATCH 的键（{keys}）变了，但不是 playground 的客户端改的："
                           "可能是别的连接写了它，或者它过期了。",
        "unwatched": "在 #{start}（{client} 开始这个事务前的最后一条命令）之后，{who} 写了 {key}（{cmd}，#{seq}），"
                     "EXEC 照样执行了：{key} 没有被 WATCH，所以事务不会察觉。读取之前先 WATCH {key}，"
                     "EXEC 就会放弃。",
        "execabort": "{cmd} 在入队时就被拒绝了（{error}）{more}：只要有一条命令被拒绝，"
                     "服务器就整个事务都不执行。",
        "execabort_more": "，另外还有 {n} 条",
        "execabort_unknown": "有命令在入队时被拒绝（{error}）：什么都没执行。",
        "busy": "{who} 的脚本（{cmd}）已经运行了 {seconds} 秒；服务器一次只做一件事，所以对其他人都回答 BUSY。"
                "脚本还没写过数据时，SCRIPT KILL 可以停止它；SHUTDOWN NOSAVE 会停掉服务器，丢掉所有未保存的写入。",
        "busy_unknown": "有一个脚本在运行（不是 playground 的客户端发的），结束之前服务器对其他人都回答 BUSY。"
                        "它还没写过数据时，SCRIPT KILL 可以停止它。",
        "unkillable": "{who} 的脚本（{cmd}，已运行 {seconds} 秒）已经写过数据：杀掉它会留下一半的修改，"
                      "所以 SCRIPT KILL 拒绝。只能等它结束，或者 SHUTDOWN NOSAVE（服务器停止，未保存的写入丢失）。",
        "unkillable_unknown": "正在运行的脚本已经写过数据：杀掉它会留下一半的修改，所以 SCRIPT KILL 拒绝。"
                              "只有 SHUTDOWN NOSAVE 能停止它。",
        "noscript_flush": "脚本加载之后（#{loaded}），{who} 用 SCRIPT FLUSH（#{seq}）清空了脚本缓存："
                          "EVALSHA 只能运行缓存里的脚本。请用 EVAL 或 SCRIPT LOAD 重新发送。",
        "noscript_mark_reset": "脚本加载之后（#{loaded}），重新开始（新的一部分）清空了脚本缓存："
                          "请用 EVAL 或 SCRIPT LOAD 重新发送。",
        "noscript_mark_flush": "脚本加载之后（#{loaded}），playground 清空了服务器和脚本缓存（Flush db）："
                               "请用 EVAL 或 SCRIPT LOAD 重新发送。",
        "noscript_mark_restart": "脚本加载之后（#{loaded}）服务器重启了：新的服务器没有缓存的脚本。"
                            "请用 EVAL 或 SCRIPT LOAD 重新发送。",
        "noscript_gone": "脚本加载过（#{loaded}），但缓存里已经没有了（被 playground 客户端以外的连接清空）："
                         "请用 EVAL 或 SCRIPT LOAD 重新发送。",
        "noscript_never": "这个服务器从来没有这个脚本：这里没有运行过它的 EVAL 或 SCRIPT LOAD。"
                          "EVALSHA 只能运行缓存里的脚本；先用 EVAL 或 SCRIPT LOAD 发送一次。",
    },
}

LABEL = {"en": "why", "zh": "原因"}


def message(lang: str, kind: str, **values) -> str:
    table = MESSAGES.get(lang) or MESSAGES[ENGLISH]
    return (table.get(kind) or MESSAGES[ENGLISH][kind]).format(**values)
