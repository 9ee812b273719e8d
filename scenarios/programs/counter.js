// Add one to the counter the way many Node services do: GET, compute, SET (ioredis).
// The playground gives the socket's path as REDIS_SOCKET (ioredis takes a path, not unix://).
const Redis = require("ioredis");

const redis = new Redis(process.env.REDIS_SOCKET);

async function increment() {
  const value = Number(await redis.get("counter"));
  await redis.set("counter", value + 1);
}

increment()
  .then(() => redis.disconnect())
  .catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
