/** Environment variable: use this PostgreSQL server instead of starting an embedded one. */
export const POSTGRES_URL_ENV = "MESSAGE_STORE_POSTGRES_URL";
/** Environment variable: use this MongoDB server instead of starting jongodb. */
export const MONGODB_URL_ENV = "MESSAGE_STORE_MONGODB_URL";
/** Environment variable: use this Redis server instead of starting one. */
export const REDIS_URL_ENV = "MESSAGE_STORE_REDIS_URL";
